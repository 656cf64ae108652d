"""The writing systems a language is written in, and whether a translation drifted into another.

A translation into Japanese has to be in kana and kanji, into Arabic in Arabic letters, into
Spanish in Latin ones. A model can drift into another script (a Chinese-trained model into
Chinese, mid-sentence), and a language identifier restricted to a few languages may not see
it: a text's script is read from its letters alone, and is sure on a few words.
"""

from __future__ import annotations

import unicodedata
from functools import cache

# The scripts of languages not written in Latin letters (or not only): each letter of a text in
# the language belongs to one of them (a brand name aside). Everything else: Latin.
_SCRIPTS: dict[str, frozenset[str]] = {
    "ja": frozenset({"Han", "Hiragana", "Katakana"}),
    "zh": frozenset({"Han"}),
    "ko": frozenset({"Hangul", "Han"}),
    "ar": frozenset({"Arabic"}),
    "fa": frozenset({"Arabic"}),
    "ur": frozenset({"Arabic"}),
    "he": frozenset({"Hebrew"}),
    "yi": frozenset({"Hebrew"}),
    "hi": frozenset({"Devanagari"}),
    "mr": frozenset({"Devanagari"}),
    "ne": frozenset({"Devanagari"}),
    "el": frozenset({"Greek"}),
    "ru": frozenset({"Cyrillic"}),
    "uk": frozenset({"Cyrillic"}),
    "be": frozenset({"Cyrillic"}),
    "bg": frozenset({"Cyrillic"}),
    "mk": frozenset({"Cyrillic"}),
    "kk": frozenset({"Cyrillic"}),
    "sr": frozenset({"Cyrillic", "Latin"}),
    "th": frozenset({"Thai"}),
}
LATIN = frozenset({"Latin"})
# Unicode's names of letters begin with their script's ("CJK UNIFIED IDEOGRAPH-4E00",
# "HIRAGANA LETTER A", "FULLWIDTH LATIN CAPITAL LETTER A").
_NAMED = {
    "CJK": "Han",
    "HIRAGANA": "Hiragana",
    "KATAKANA": "Katakana",
    "HANGUL": "Hangul",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "DEVANAGARI": "Devanagari",
    "GREEK": "Greek",
    "CYRILLIC": "Cyrillic",
    "THAI": "Thai",
    "LATIN": "Latin",
}
# Fewer letters than this say nothing sure of a text's script.
MIN_LETTERS = 4


def scripts_of(language: str) -> frozenset[str]:
    """The scripts ``language`` (a tag: ``ja``, ``zh-TW``, ``sr-Latn``) is written in."""
    primary = language.split("-")[0].split("_")[0].casefold()
    return _SCRIPTS.get(primary, LATIN)


@cache
def script_of(letter: str) -> str | None:
    """The script of one letter, among those this module knows; None for another."""
    words = unicodedata.name(letter, "").split()
    for word in words[:2]:  # "FULLWIDTH LATIN …", "HALFWIDTH KATAKANA …"
        if word in _NAMED:
            return _NAMED[word]
    return None


def drifted(translation: str, language: str, original: str, at_least: float = 0.5) -> bool:
    """Whether a translation into ``language`` is mostly (``at_least`` of its letters) in a
    script neither ``language``'s nor one of ``original``'s: written in a third language. A
    name kept in the original's script is no drift, nor is a copy (another check's to see)."""
    letters = [c for c in translation if c.isalpha()]
    if len(letters) < MIN_LETTERS:
        return False
    known = scripts_of(language) | {script_of(c) for c in original if c.isalpha()}
    return sum(script_of(c) not in known for c in letters) / len(letters) >= at_least
