"""The words of a line as the analyzer read them, and the replacements planned for them."""

from __future__ import annotations

import re
from dataclasses import dataclass

VERB = re.compile(r"<(vblex|vbmod|vaux|vbhaver|vbser)>")
CLAUSE_WORD = re.compile(r"<(cnjsub|cnjcoo|cnjadv|rel)>")
VOWEL = re.compile(r"[aeiouyhàâéèêëîïôûùAEIOUYHÀÂÉÈÊËÎÏÔÛÙ]")
# Pronouns that are the reader, in either register.
READER = frozenset({"usted", "tú", "você", "vous", "tu", "senhor", "senhora", "ti", "toi"})


@dataclass
class Unit:
    surface: str
    readings: list[str]
    start: int  # where the surface is in the text; -1: not found (never replaced)
    hyphened: bool  # joined to the word before by a hyphen: "Avez-vous"

    @property
    def key(self) -> str:
        return self.surface.casefold()

    @property
    def is_word(self) -> bool:
        return any(c.isalpha() for c in self.surface)

    def has(self, tag: str) -> bool:
        return any(tag in r for r in self.readings)

    @property
    def is_verb(self) -> bool:
        return any(VERB.search(r) for r in self.readings)

    @property
    def only_verb(self) -> bool:
        """A verb and nothing but a verb or an adjective: "Pode", "precisa", not "cita" (a
        noun too) or "una" (an article too)."""
        heads = [r.split("+")[0] for r in self.readings]
        return any(VERB.search(h) for h in heads) and all(
            VERB.search(h) or "<adj>" in h for h in heads
        )

    @property
    def opens_clause(self) -> bool:
        """Punctuation, or a conjunction: what follows is a new clause."""
        return not self.is_word or any(CLAUSE_WORD.search(r) for r in self.readings)

    @property
    def could_be_subject(self) -> bool:
        if self.key in READER:
            return False
        return any("<n>" in r or "<np>" in r or "<prn><tn>" in r for r in self.readings)


# Replacements planned: a word to write as is, or a lexical form to generate.
@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Form:
    form: str
    suffix: str = ""  # written after the generated word: "-tu"


Plan = dict[int, Word | Form]


def vowel_after(text: str, end: int) -> bool:
    return text[end : end + 1] == " " and bool(VOWEL.match(text[end + 1 : end + 2]))


def verb_form(unit: Unit, old: str, new: str, imperative: bool | None) -> Form | None:
    """``unit`` as a verb with ``old`` person tags (``<p2><pl>``) made ``new``: its imperative
    reading when ``imperative``, else another one (None: either)."""
    readings = [r for r in unit.readings if VERB.search(r.split("+")[0]) and old in r]
    if imperative is not None:
        readings = [r for r in readings if ("<imp>" in r) == imperative]
    if not readings:
        return None
    head, _, clitics = readings[0].partition("+")
    lemma = head[: head.index("<")] if "<" in head else head
    form = lemma[:1].lower() + lemma[1:] + head[len(lemma) :].replace(old, new, 1)
    return Form(form + (f"+{clitics}" if clitics else ""))


def clauses(units: list[Unit]) -> list[int]:
    """Each unit's clause start: the index after the last punctuation or conjunction."""
    starts, start = [], 0
    for index, unit in enumerate(units):
        if unit.opens_clause:
            start = index + 1
        starts.append(start)
    return starts
