"""Repetition loops: a translation that says the same words over and over.

Neural engines and language models sometimes fall into a loop ("the order the order the
order…", "谢谢谢谢谢谢…"): one of the defects most reported of LibreTranslate. A loop is a unit
repeated back to back (whatever its case): one to eight words at least ``WORD_COPIES``
times, or one to eight letters at least ``LETTER_COPIES`` times (text without spaces:
Chinese, Japanese, Thai). One the original has too ("no no no", "hahaha") is the writer's,
and kept.
"""

from __future__ import annotations

import re

WORD_COPIES = 3
LETTER_COPIES = 5
# A word of a unit is at most 40 characters: the pattern then takes time in proportion to any
# text (a 30,000-character "a-a-a-…" would otherwise be read again from each of its words).
_WORDS = re.compile(rf"((?:\b\w\S{{0,39}}\s+){{1,8}}?)\1{{{WORD_COPIES - 1},}}", re.IGNORECASE)
_LETTERS = re.compile(rf"([^\W\d_]{{1,8}}?)\1{{{LETTER_COPIES - 1},}}", re.IGNORECASE)


def looped(text: str) -> bool:
    """Whether ``text`` has a unit repeated back to back as a loop does."""
    return bool(_WORDS.search(text + " ") or _LETTERS.search(text))


def cut_loops(text: str, original: str) -> str:
    """``text`` with each loop cut to one copy of its unit, unless ``original`` loops too."""
    # The translation first: it seldom loops, and then the original need not be read.
    if not looped(text) or looped(original):
        return text
    # A space after the text, so that its last copy of a unit matches as the others do; the
    # text's last character is then that space still, whatever was cut.
    words_cut = _WORDS.sub(r"\1", text + " ")[:-1]
    # One letter over and over is most often a word of two ("谢谢", thanks): two are kept.
    return _LETTERS.sub(lambda m: m[1] * (2 if len(m[1]) == 1 else 1), words_cut)
