"""Apertium's stream format: segments in (tags as superblanks, reserved characters and
overlong words carried past the programs as atoms of their own) and text out (superblanks
unwrapped, escapes and the engine's marks removed)."""

from __future__ import annotations

import itertools
import re

from threadwise.text.tagged import Part, Parts, Tag, tags_of

# Characters with a meaning in Apertium's stream format, and ones its programs lose (NUL ends
# a message in null-flush mode, other controls are not text, lt-proc drops a soft hyphen).
# Each run of them goes through the pipeline as a superblank of its own.
_RESERVED_CHARACTERS = r"\\\[\]^$/@{}<>*#+~|\x00-\x08\x0b\x0c\x0e-\x1f\x7f\xad"
RESERVED = re.compile(f"[{_RESERVED_CHARACTERS}]+")
# Longer than the words of the pairs' languages ("anticonstitucionalmente": 23 letters), a run
# of what the programs read as one word is none to look up or translate: it goes through
# untouched. (Anchored at the run's start, so that the search stays linear.)
MAX_WORD_CHARACTERS = 48
_WORD_CHARACTER = rf"[^\s{_RESERVED_CHARACTERS}]"
LONG_WORD = re.compile(f"(?<!{_WORD_CHARACTER})({_WORD_CHARACTER}{{{MAX_WORD_CHARACTERS + 1},}})")
_CARRIED = re.compile(f"{LONG_WORD.pattern}|{RESERVED.pattern}")
# An unknown word (*), an untranslated one (@) and a generation gap (#) are marked by the
# engine; the marks are dropped, the words kept.
_ENGINE_MARKS = frozenset("*@#~")


def carry_reserved(parts: Parts) -> tuple[Parts, dict[int, str]]:
    """``parts`` with each run of ``RESERVED`` characters, and each word longer than
    ``MAX_WORD_CHARACTERS``, made an atom of its own (numbered after the segment's tags), and
    the text of those atoms."""
    number = itertools.count(max((t.id for t in tags_of(parts)), default=0) + 1)
    carried: dict[int, str] = {}
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Tag):
            out.append(part)
            continue
        position = 0
        for match in _CARRIED.finditer(part):
            out.append(part[position : match.start()])
            atom = Tag(next(number), "atom")
            carried[atom.id] = match.group()
            out.append(atom)
            position = match.end()
        out.append(part[position:])
    return tuple(p for p in out if p != ""), carried


def put_back(parts: Parts, carried: dict[int, str]) -> Parts:
    """``carry_reserved`` undone: the carried atoms' text back in their place."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Tag) and part.kind == "atom" and part.id in carried:
            part = carried[part.id]
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        else:
            out.append(part)
    return tuple(out)


def to_stream(parts: Parts) -> str:
    """A segment in Apertium's stream format: its text (holding no ``RESERVED`` character:
    see ``carry_reserved``), tags as superblanks."""
    out = [f"[{p.markup()}]" if isinstance(p, Tag) else p for p in parts]
    out.append(" ")  # a final blank, or the last sentence loses its full stop
    return "".join(out)


def from_stream(stream: str) -> str:
    """Apertium's output as tagged text: superblanks unwrapped, escapes and marks removed."""
    out: list[str] = []
    i = 0
    in_blank = False
    while i < len(stream):
        char = stream[i]
        if char == "\\" and i + 1 < len(stream):
            out.append(stream[i + 1])
            i += 2
            continue
        if char == "[" and not in_blank:
            in_blank = True
        elif char == "]" and in_blank:
            in_blank = False
        elif in_blank or char not in _ENGINE_MARKS:
            out.append(char)
        i += 1
    return "".join(out)
