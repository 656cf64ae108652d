"""Text with markup carried as numbered tags, the form in which a segment goes to an engine.

A segment is a sequence of text and tags: a pair ``<g1>…</g1>`` stands for markup around
words (emphasis, a link), an atom ``<x2/>`` for something that must come back unchanged
(a code span, a URL, an emoji, a line break). Engines move tags with the words they belong
to; ``parse_tags`` checks that every tag came back once and properly nested.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

TagKind = Literal["open", "close", "atom"]


@dataclass(frozen=True)
class Tag:
    id: int
    kind: TagKind

    def markup(self) -> str:
        if self.kind == "open":
            return f"<g{self.id}>"
        if self.kind == "close":
            return f"</g{self.id}>"
        return f"<x{self.id}/>"


Part = str | Tag
Parts = tuple[Part, ...]

_TAG = re.compile(r"<g(\d+)>|</g(\d+)>|<x(\d+)/>")
_LETTER = re.compile(r"[^\W\d_]")


def tags_of(parts: Sequence[Part]) -> list[Tag]:
    return [p for p in parts if isinstance(p, Tag)]


def text_of(parts: Sequence[Part]) -> str:
    """The words alone, tags dropped."""
    return "".join(p for p in parts if isinstance(p, str))


def has_words(parts: Sequence[Part]) -> bool:
    """Whether there is anything to translate (a letter outside the tags)."""
    return bool(_LETTER.search(text_of(parts)))


def to_tagged(parts: Iterable[Part]) -> str:
    return "".join(p.markup() if isinstance(p, Tag) else p for p in parts)


def split_tags(text: str) -> Parts:
    """Tagged text as parts, as it is (no checks)."""
    parts: list[Part] = []
    position = 0
    for match in _TAG.finditer(text):
        if match.start() > position:
            parts.append(text[position : match.start()])
        opened, closed, atom = match.groups()
        if opened:
            parts.append(Tag(int(opened), "open"))
        elif closed:
            parts.append(Tag(int(closed), "close"))
        else:
            parts.append(Tag(int(atom), "atom"))
        position = match.end()
    if position < len(text):
        parts.append(text[position:])
    return tuple(parts)


def parse_tags(text: str, expected: Sequence[Tag]) -> Parts | None:
    """``text`` as parts if it has exactly the ``expected`` tags, each once and well nested;
    else None. Whitespace just inside a pair moves outside it (``<g1> word</g1>`` →
    `` <g1>word</g1>``): Markdown emphasis may not start or end with a space."""
    parts = list(split_tags(text))
    found = tags_of(parts)
    if sorted(found, key=_order) != sorted(expected, key=_order) or not _well_nested(found):
        return None
    return _whitespace_outside_pairs(parts)


def _order(tag: Tag) -> tuple[int, str]:
    return (tag.id, tag.kind)


def _well_nested(tags: Sequence[Tag]) -> bool:
    stack: list[int] = []
    for tag in tags:
        if tag.kind == "open":
            stack.append(tag.id)
        elif tag.kind == "close" and (not stack or stack.pop() != tag.id):
            return False
    return not stack


def _whitespace_outside_pairs(parts: list[Part]) -> Parts:
    out: list[Part] = []
    for part in _merged(parts):
        if isinstance(part, Tag) and part.kind == "close" and out and isinstance(out[-1], str):
            inner = out.pop()
            assert isinstance(inner, str)
            out += [inner.rstrip(), part, inner[len(inner.rstrip()) :]]
            continue
        if isinstance(part, str) and out and isinstance(out[-1], Tag) and out[-1].kind == "open":
            tag = out.pop()
            stripped = part.lstrip()
            out += [part[: len(part) - len(stripped)], tag, stripped]
            continue
        out.append(part)
    return _merged(out)


def _merged(parts: Iterable[Part]) -> Parts:
    merged: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if merged and isinstance(merged[-1], str):
                left = merged[-1]
                # Whitespace moved out of a pair next to a space already there: keep one.
                if left[-1:].isspace() and part[:1].isspace():
                    part = part.lstrip(" ")
                merged[-1] = left + part
                continue
        merged.append(part)
    return tuple(merged)
