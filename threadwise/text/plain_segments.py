"""Split a plain-text message into paragraphs an engine translates, its spacing kept.

Plain text has no markup: each paragraph (lines apart from the next by a blank line) is one
segment, its line breaks atoms so that they come back where they were, and protected text
(``text.protected``) atoms too. The space around paragraphs is copied, and translated words
are written back as they are, nothing escaped.
"""

from __future__ import annotations

import re

from threadwise.text.protected import protected_spans
from threadwise.text.segmented import Segment, SegmentedMessage
from threadwise.text.tagged import Part, Tag, has_words

_BLANK_LINES = re.compile(r"\r?\n(?:[ \t\f\v]*\r?\n)+")
_LINE_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*")


class PlainSegmenter:
    def segment(self, text: str) -> SegmentedMessage:
        pieces: list[str | int] = []
        segments: list[Segment] = []
        position = 0
        for paragraph in [*_BLANK_LINES.finditer(text), None]:
            end = paragraph.start() if paragraph is not None else len(text)
            block = text[position:end]
            words = block.strip()
            if has_words((words,)):
                lead = block[: len(block) - len(block.lstrip())]
                pieces += [lead, len(segments), block[len(lead) + len(words) :]]
                segments.append(_segment(words))
            else:
                pieces.append(block)
            if paragraph is not None:
                pieces.append(paragraph.group())
                position = paragraph.end()
        return SegmentedMessage(text, tuple(p for p in pieces if p != ""), tuple(segments), "plain")


def _segment(paragraph: str) -> Segment:
    parts: list[Part] = []
    markup: dict[Tag, str] = {}
    spans = [(m.start(), m.end()) for m in _LINE_BREAK.finditer(paragraph)]
    position = 0
    for start, end in sorted([*spans, *protected_spans(paragraph)]):
        if start < position:  # a line break inside a protected span: the span holds it
            continue
        if start > position:
            parts.append(paragraph[position:start])
        tag = Tag(len(markup) + 1, "atom")
        parts.append(tag)
        markup[tag] = paragraph[start:end]
        position = end
    if position < len(paragraph):
        parts.append(paragraph[position:])
    return Segment(tuple(parts), markup, "plain")
