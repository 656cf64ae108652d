"""Formality: how a translation addresses its reader, formally or informally.

Spanish, French, German and Portuguese have two registers (usted/tú, vous/tu, Sie/du, o
senhor/tu; in Brazil o senhor/você). ``instruction`` tells the model which to use;
``RegisterCheck`` finds the words of the other register in what it wrote: pronouns and
possessives by list, and verb forms by the language's morphological analyzer where there is
one (a word every reading of which is a second person singular form, "puedes", is informal;
one every reading of which is a formal imperative, "envíenos", is formal). A word that may
be either ("revisa": he checks, or check!) decides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from threadwise.protocol import Formality

# What ``RegisterCheck.problems`` says of an informal line that shows no informal word.
NO_INFORMAL_FORM = "(no informal form)"

# (surface, readings joined by "/") per word: the shape of ``ApertiumEngine.analyze``.
Analyze = Callable[[str, str], Sequence[tuple[str, str]]]

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
# A sentence's, line's, quotation's or list item's first word.
_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“„«(]\s*)(?:[-*>]\s*|\d+[.)]\s*)*(?=\w)", re.M)


@dataclass(frozen=True)
class _Rules:
    informal: frozenset[str]  # words only the informal register uses (casefolded)
    formal: frozenset[str]  # words only the formal register uses (casefolded)
    formal_capitalized: frozenset[str] = frozenset()  # formal when capitalized mid-sentence
    formal_phrases: tuple[str, ...] = ()
    instruction: tuple[str, str] = ("", "")  # formal, informal
    plural: frozenset[str] = frozenset()  # words for several readers, wrong in either register


_SPANISH = _Rules(
    informal=frozenset(
        {"tú", "tu", "tus", "te", "ti", "contigo", "tuyo", "tuya", "tuyos", "tuyas"}
    ),
    # vosotros, the informal plural (how Apertium writes "you"): not for one reader
    plural=frozenset({"vosotros", "vosotras", "os", "vuestro", "vuestra", "vuestros", "vuestras"}),
    formal=frozenset({"usted", "ustedes", "ud", "uds", "vd", "vds"}),
    instruction=(
        "Address the reader formally, as usted (su, le and the verb forms of usted); "
        "never use tú, tu, te or the verb forms of tú.",
        "Address the reader informally, as tú (tu, te and the verb forms of tú); "
        "never use usted or its verb forms.",
    ),
)
_FRENCH = _Rules(
    informal=frozenset({"tu", "te", "t", "toi", "ton", "ta", "tes"}),
    formal=frozenset({"vous", "votre", "vos"}),
    instruction=(
        "Address the reader formally, as vous (votre, vos and the verb forms of vous); "
        "never use tu, te, ton, ta or tes.",
        "Address the reader informally, as tu (te, ton, ta, tes and the verb forms of tu); "
        "never use vous, votre or vos.",
    ),
)
_GERMAN = _Rules(
    # Pronouns, possessives, and the second person singular of common verbs.
    informal=frozenset(
        {
            *("du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "deines"),
            *("kannst", "hast", "bist", "musst", "willst", "sollst", "darfst", "wirst"),
            *("möchtest", "würdest", "könntest", "hättest", "solltest", "weißt", "brauchst"),
        }
    ),
    formal=frozenset(),
    # "Sie", "Ihr": formal mid-sentence; "she", "they", "her" at a sentence's start.
    formal_capitalized=frozenset(
        {"Sie", "Ihnen", "Ihr", "Ihre", "Ihren", "Ihrem", "Ihrer", "Ihres"}
    ),
    instruction=(
        "Address the reader formally, as Sie (Ihnen, Ihr and the verb forms of Sie, also in "
        'requests: "Prüfen Sie"); never use du, dich, dir or dein.',
        "Address the reader informally, as du (dich, dir, dein and the verb forms of du, "
        'also in requests: "Prüfe"); never use Sie, Ihnen or Ihr.',
    ),
)
_PORTUGUESE = _Rules(
    informal=frozenset({"tu", "te", "ti", "contigo", "teu", "tua", "teus", "tuas"}),
    formal=frozenset({"você", "vocês"}),
    formal_phrases=("o senhor", "a senhora", "os senhores", "as senhoras"),
    instruction=(
        "Address the reader formally (o senhor, a senhora, or the verb in the third person "
        'with seu, sua, lhe: "Verifique a sua caixa"); never use tu, te, teu or tua.',
        "Address the reader informally, as tu (te, teu, tua and the verb forms of tu: "
        '"Verifica a tua caixa"); never use o senhor, a senhora, você, seu or lhe for the '
        "reader.",
    ),
)
# Brazil: você is the informal register; o senhor / a senhora the formal one.
_BRAZILIAN = _Rules(
    informal=frozenset(
        {"você", "vocês", "tu", "te", "ti", "contigo", "teu", "tua", "teus", "tuas"}
    ),
    formal=frozenset(),
    formal_phrases=("o senhor", "a senhora", "os senhores", "as senhoras"),
    instruction=(
        "Address the reader formally, as o senhor or a senhora (with seu, sua, lhe and the "
        "verb in the third person); never use você, tu or te.",
        "Address the reader informally, as você (seu, sua, te); never use o senhor or a senhora.",
    ),
)
_RULES = {"es": _SPANISH, "fr": _FRENCH, "de": _GERMAN, "pt": _PORTUGUESE}

# Words with a hyphen whose pieces are not words of their own.
_COMPOUNDS = frozenset({"rendez-vous", "tête-à-tête"})

# Second person words in English: a message that has them speaks to its reader.
_ENGLISH_YOU = re.compile(r"\b(you|your|yours|yourself|yourselves)\b", re.IGNORECASE)
# ... unless only in a formula that speaks to no one in particular.
_ENGLISH_FORMULAS = re.compile(
    r"\b(thank you|thank-you|see you|you're welcome|you are welcome|mind you)\b", re.IGNORECASE
)


def distinguishes(language: str) -> bool:
    """Whether ``language`` has formal and informal ways to address the reader."""
    return language in _RULES


def applies(formality: Formality | None, language: str) -> bool:
    """Whether a translation into ``language`` must be in a register."""
    return formality in ("formal", "informal") and distinguishes(language)


def _rules(language: str, region: str | None) -> _Rules:
    return _BRAZILIAN if (language, region) == ("pt", "BR") else _RULES[language]


def instruction(language: str, region: str | None, formality: Formality) -> str:
    """What the model is told, in English like the rest of its prompt ("": nothing)."""
    if not applies(formality, language):
        return ""
    formal, informal = _rules(language, region).instruction
    return formal if formality == "formal" else informal


def addresses_reader(text: str, language: str) -> bool:
    """Whether ``text`` (in ``language``) speaks to its reader, so that a translation of it
    must show its register. Known for English; for the others, by their second person words
    of either register."""
    if language == "en":
        return bool(_ENGLISH_YOU.search(_ENGLISH_FORMULAS.sub(" ", text)))
    if language not in _RULES:
        return False
    rules = _RULES[language]
    words = {w.casefold() for w in _WORD.findall(text)}
    return bool(words & (rules.informal | rules.formal | {"vous", "sie", "você"}))


class RegisterCheck:
    """The words of a translation that belong to the other register than the one asked for.

    ``analyze``: a morphological analyzer (``ApertiumEngine.analyze``) for the languages in
    ``analyzed``; without one, pronouns and possessives alone decide."""

    def __init__(
        self, analyze: Analyze | None = None, analyzed: frozenset[str] = frozenset()
    ) -> None:
        self.analyze = analyze
        self.analyzed = analyzed

    def problems(
        self,
        text: str,
        language: str,
        region: str | None,
        formality: Formality,
        speaks_to_reader: bool,
    ) -> list[str]:
        """What is wrong with ``text`` for ``register``: the other register's words, or,
        for an informal translation of a message that speaks to its reader, that it shows
        no informal word (the formal register is also how one writes to no one)."""
        if not applies(formality, language):
            return []
        rules = _rules(language, region)
        informal, formal = self._evidence(text, language, rules)
        plural = _unique([w for w in _WORD.findall(text) if w.casefold() in rules.plural])
        if formality == "formal":
            return informal + plural
        if formal or plural:
            return formal + plural
        if speaks_to_reader and not informal:
            return [NO_INFORMAL_FORM]
        return []

    def _evidence(self, text: str, language: str, rules: _Rules) -> tuple[list[str], list[str]]:
        """The informal words and the formal ones."""
        informal: list[str] = []
        formal: list[str] = []
        folded = text.casefold()
        formal.extend(p for p in rules.formal_phrases if re.search(rf"\b{p}\b", folded))
        starts = _sentence_starts(text)
        for match in _WORD.finditer(text):
            word = match.group()
            # "t'envoyer", "Peux-tu", "Pedimos-te": each piece counts ("rendez-vous" is one).
            pieces = [word] if word.casefold() in _COMPOUNDS else re.split(r"['\u2019-]", word)
            for piece in pieces:
                key = piece.casefold()
                if key in rules.informal:
                    informal.append(piece)
                elif key in rules.formal or (
                    piece in rules.formal_capitalized and match.start() not in starts
                ):
                    formal.append(piece)
        if self.analyze is not None and language in self.analyzed:
            previous = ""
            for surface, readings in self.analyze(text, language):
                kind = _verb_register(readings, language)
                # "secção de encomendas": after an article or a preposition, a noun the
                # dictionary may not know as one.
                after_noun_word = all("<pr>" in r or "<det>" in r for r in previous.split("/"))
                if kind == "informal" and not after_noun_word:
                    informal.append(surface)
                elif kind == "formal" and not after_noun_word:
                    formal.append(surface)
                previous = readings if any(c.isalpha() for c in surface) else ""
        return _unique(informal), _unique(formal)


def _verb_register(readings: str, language: str) -> str | None:
    """A word's register by its readings (``revisar<vblex><imp><p2><sg>/…``): informal when
    every reading is a second person singular form (or has such a pronoun attached),
    formal when every reading is a formal request (a third person imperative, or a plural
    second person in French); None when the readings disagree ("revisa": he checks, or
    check!)."""
    if readings.startswith("*"):
        return None
    options = readings.split("/")
    second = ["<p2><sg>" in r or "<p2><mf><sg>" in r for r in options]
    if all(second):
        return "informal"
    # French "vous": also a plural, but a message has one reader; Spanish "vosotros" is
    # the informal plural.
    plural = "<p2><pl>" if language == "fr" else "<imp><p3>"
    if all("<imp><p3>" in r or plural in r for r in options):
        return "formal"
    return None


def _sentence_starts(text: str) -> set[int]:
    """Where sentences (and lines, quotes, list items) begin in ``text``."""
    return {m.end() for m in _START.finditer(text)}


def _unique(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))
