"""A message as engines translate it: verbatim pieces and segments of text and tags.

Each segmenter (``markdown_segments``, ``html_segments``, ``plain_segments``) cuts a message
of its text format into these; rendering writes translated parts back in that format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from threadwise.protocol import TextFormat
from threadwise.text.escaping import encoder, escaper
from threadwise.text.protected import protected_counts
from threadwise.text.tagged import Part, Parts, Tag, has_words


@dataclass(frozen=True)
class Segment:
    """One block's inline content: the parts an engine sees, and the source each tag stands for."""

    parts: Parts
    markup: Mapping[Tag, str]
    text_format: TextFormat = "markdown"
    # The source as written, where the parts render it otherwise: an HTML segment's engine
    # text has its character references decoded (``&amp;`` → ``&``).
    original: str | None = None

    @property
    def tags(self) -> list[Tag]:
        return [p for p in self.parts if isinstance(p, Tag)]

    def render(self, parts: Sequence[Part], *, escape: bool = False) -> str:
        """The message's format for translated ``parts`` (which carry this segment's tags):
        HTML and XML words always encoded; ``escape``: kept from reading as syntax."""
        text = self._join(parts, escape, spaced=False)
        if not self.markup:  # no atoms to space
            return text
        if protected_counts(text) != protected_counts(self._join(self.parts, False, False)):
            # An engine put a word against an atom, and glued they read differently
            # ("…?id=7a", "a@bo"): spaces go around the atoms.
            text = self._join(parts, escape, spaced=True)
        return text

    def _join(self, parts: Sequence[Part], escape: bool, spaced: bool) -> str:
        written = escaper(self.text_format) if escape else encoder(self.text_format)
        out: list[str] = []
        atom_before = False
        for part in parts:
            is_atom = isinstance(part, Tag) and part.kind == "atom"
            text = self.markup[part] if isinstance(part, Tag) else part
            if not isinstance(part, Tag) and written is not None:
                text = written(text)
            if spaced and (is_atom or atom_before) and out and _touching(out[-1], text):
                out.append(" ")
            out.append(text)
            atom_before = is_atom
        return "".join(out)

    def source(self) -> str:
        return self.original if self.original is not None else self.render(self.parts)

    def runs(self) -> list[tuple[int, str]]:
        """(index in ``parts``, text) of each text run worth translating on its own."""
        return [(i, p) for i, p in enumerate(self.parts) if isinstance(p, str) and has_words((p,))]


@dataclass(frozen=True)
class SegmentedMessage:
    """A message as verbatim pieces and segment slots (``int``: an index into ``segments``)."""

    text: str
    pieces: tuple[str | int, ...]
    segments: tuple[Segment, ...]
    text_format: TextFormat = "markdown"

    def render(self, rendered_segments: Sequence[str]) -> str:
        return "".join(p if isinstance(p, str) else rendered_segments[p] for p in self.pieces)


class Segmenter(Protocol):
    """Cuts a message of one text format into segments."""

    def segment(self, text: str) -> SegmentedMessage: ...


def _touching(left: str, right: str) -> bool:
    return bool(left and right) and not left[-1].isspace() and not right[0].isspace()
