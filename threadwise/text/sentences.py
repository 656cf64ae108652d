"""Sentences: where prose splits into them, in the language it is written in.

sentencex (Wikimedia's rule-based segmenter, compiled; chosen by bench/sentences.py) knows each
language's abbreviations, so "Mr. Black asks Mr. Smith." stays one sentence; a line break
always ends one too, so that a list's lines stay apart.
"""

from __future__ import annotations

import re

import sentencex

# Titles before a name, which sentencex ends a sentence after when the name is also a word
# ("Dr. Who", French "M. Dupont"): a title never ends a sentence.
_TITLE_END = re.compile(
    r"(?:^|[\s(\"'“«])(?:Mr|Mrs|Ms|Dr|Dra|Prof|Sr|Sra|Srta|M|Mme|Mlle|Hr|Fr)\.$"
)
_LINE = re.compile(r"[^\n]+")
_STOPS = frozenset(".!?…。\uff01\uff1f")
_CLOSING = "\"'”\u2019»)]"
# After a sentence that ends the text: a capitalized nonword, which starts a new sentence unless
# the stop before it was an abbreviation's ("asks Mr.", "e.g.").
_NEXT = " Zq"


def split_sentences(text: str, language: str = "en") -> list[str]:
    """``text``'s sentences, stripped (``language``: a BCP-47 tag; unknown ones read as
    English)."""
    return [text[start:end] for start, end in _spans(text, _language(language))]


def sentence_ends(text: str, language: str = "en") -> list[int]:
    """Where each complete sentence of ``text`` ends, after its stop and any closing quote.
    One that ends the text counts only if its stop is not an abbreviation's ("asks Mr.") or
    a number's (the "$8." of a cut "$8.50")."""
    code = _language(language)
    spans = [(start, end) for start, end in _spans(text, code) if _ends_with_stop(text[start:end])]
    if spans and not text[spans[-1][1] :].strip():
        last = text[slice(*spans[-1])]
        if re.search(r"\d\.$", last) or len(_spans(last + _NEXT, code)) < 2:
            spans.pop()
    return [end for _, end in spans]


def _ends_with_stop(sentence: str) -> bool:
    return sentence.rstrip(_CLOSING)[-1:] in _STOPS


def _language(tag: str) -> str:
    return tag.strip().replace("_", "-").split("-")[0].lower() or "en"


def _spans(text: str, language: str) -> list[tuple[int, int]]:
    """Each sentence's start and end in ``text``, without the space around it."""
    spans: list[tuple[int, int]] = []
    for boundary in sentencex.get_sentence_boundaries(language, text):
        offset = boundary["start_index"]
        for line in _LINE.finditer(text, offset, boundary["end_index"]):
            start = line.start() + len(line.group()) - len(line.group().lstrip())
            end = line.start() + len(line.group().rstrip())
            if start >= end:
                continue
            previous = spans[-1] if spans else None
            if (
                previous
                and "\n" not in text[previous[1] : start]
                and _TITLE_END.search(text[previous[0] : previous[1]])
            ):
                spans[-1] = (previous[0], end)
            else:
                spans.append((start, end))
    return spans
