"""Split a Markdown message into the text an engine translates and the syntax kept as written.

Each block's inline content (a paragraph, heading, list item or table cell) becomes one
segment, so sentences stay whole. Inline markup inside it (emphasis, links) travels as
tag pairs, and what must come back byte-identical (code spans, URLs, e-mail addresses,
@mentions, emoji, placeholders, inline HTML, images, escapes, line breaks) as atoms that
stand for the exact source text. Everything outside the segments (list markers, quote
markers, table pipes, code blocks, HTML blocks) is copied, never seen by an engine.

Segments are located in the source by markdown-it's line maps and its inline tokens, so the
message is rebuilt from source slices; a block that cannot be located exactly is kept as
written rather than guessed at.
"""

from __future__ import annotations

import bisect
import logging
import re

from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkDestination, parseLinkTitle
from markdown_it.token import Token

from threadwise.text.escaping import escape_markdown
from threadwise.text.protected import PROTECTED, protected_spans
from threadwise.text.segmented import Segment, SegmentedMessage
from threadwise.text.tagged import Part, Tag, has_words

# Where their callers have always found them.
__all__ = [
    "MarkdownSegmenter",
    "Segment",
    "SegmentedMessage",
    "escape_markdown",
    "is_plain",
    "markdown_parser",
]

log = logging.getLogger(__name__)

_BREAK = re.compile(r"[ \t]*\\?\n[ \t]*")
# What could make a one-line text more than one paragraph of words: a character with a
# meaning in inline Markdown, a line break, a block marker or space at either end.
_NOT_PLAIN = re.compile(r"[\x00-\x1f\x7f\\`*_\[\]<>#|~&]|^\s|^[+=-]|^\d+[.)]|\s$")


def is_plain(text: str) -> bool:
    """Whether ``text`` is one paragraph of words without Markdown or protected text: most
    chat messages. Such a text is one segment whose parts are the text itself, and a plain
    translation of it needs no structure check (both sides are one paragraph of words)."""
    return not _NOT_PLAIN.search(text) and not PROTECTED.search(text)


def markdown_parser() -> MarkdownIt:
    """CommonMark with tables and strikethrough; text tokens left as the source wrote them."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.disable("text_join")  # keep escapes and entities as their own tokens
    return md


class _Unaligned(Exception):
    """The inline tokens do not match the source text (a construct this module does not map)."""


class MarkdownSegmenter:
    def __init__(self) -> None:
        self._md = markdown_parser()

    def segment(self, text: str) -> SegmentedMessage:
        if is_plain(text):  # what the parser would make of it, without the parser
            if not has_words((text,)):
                return SegmentedMessage(text, (text,) if text else (), ())
            return SegmentedMessage(text, (0,), (Segment((text,), {}),))
        return self.parsed(text)

    def parsed(self, text: str) -> SegmentedMessage:
        """``segment`` by the parser, whatever the text."""
        lines = text.split("\n")
        line_starts = [0]
        for line in lines[:-1]:
            line_starts.append(line_starts[-1] + len(line) + 1)
        columns: dict[int, int] = {}  # per line, where the next table cell may start
        found: list[tuple[int, int, Segment]] = []
        in_table = False
        for token in self._md.parse(text):
            if token.type in ("table_open", "table_close"):
                in_table = token.type == "table_open"
            if token.type != "inline" or token.map is None or not token.content:
                continue
            try:
                offsets = _locate(token, lines, line_starts, columns, in_table)
                start, end, segment = _segment(token, offsets, text)
            except _Unaligned as exc:
                log.debug("kept a block as written: %s", exc)
                continue
            if has_words(segment.parts):
                found.append((start, end, segment))
        found.sort(key=lambda f: f[0])
        pieces: list[str | int] = []
        segments: list[Segment] = []
        position = 0
        for start, end, segment in found:
            if start < position:  # overlapping locations: keep the later block as written
                continue
            pieces.append(text[position:start])
            pieces.append(len(segments))
            segments.append(segment)
            position = end
        pieces.append(text[position:])
        return SegmentedMessage(text, tuple(p for p in pieces if p != ""), tuple(segments))


def _locate(
    token: Token,
    lines: list[str],
    line_starts: list[int],
    columns: dict[int, int],
    in_table: bool,
) -> list[int]:
    """Source offset of each line of the token's content."""
    assert token.map is not None
    offsets = []
    for k, content_line in enumerate(token.content.split("\n")):
        number = token.map[0] + k
        if number >= len(lines):
            raise _Unaligned(f"line {number} is past the end")
        line = lines[number].rstrip("\r")
        if in_table:
            column = line.find(content_line, columns.get(number, 0))
            if column >= 0:
                columns[number] = column + len(content_line)
        else:
            # Inline content ends its line (after list, quote and heading markers).
            column = line.rfind(content_line)
        if column < 0:
            raise _Unaligned(f"{content_line[:40]!r} is not on line {number}")
        offsets.append(line_starts[number] + column)
    return offsets


class _Builder:
    """Parts and markup of one segment, with tag numbers given in order of appearance."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.markup: dict[Tag, str] = {}
        self.open: list[Tag] = []
        self._next = 1

    def text(self, text: str) -> None:
        position = 0
        for start, end in protected_spans(text):
            self._plain(text[position:start])
            self.atom(text[start:end])
            position = end
        self._plain(text[position:])

    def _plain(self, text: str) -> None:
        if text:
            if self.parts and isinstance(self.parts[-1], str):
                self.parts[-1] += text
            else:
                self.parts.append(text)

    def atom(self, source: str) -> None:
        self._add(Tag(self._next, "atom"), source)
        self._next += 1

    def open_pair(self, source: str) -> None:
        tag = Tag(self._next, "open")
        self._next += 1
        self.open.append(tag)
        self._add(tag, source)

    def close_pair(self, source: str) -> None:
        if not self.open:
            raise _Unaligned("a closing token without its opening one")
        self._add(Tag(self.open.pop().id, "close"), source)

    def _add(self, tag: Tag, source: str) -> None:
        self.parts.append(tag)
        self.markup[tag] = source


def _segment(token: Token, offsets: list[int], text: str) -> tuple[int, int, Segment]:
    content = token.content
    starts = [0]
    for line in content.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def source_offset(c: int) -> int:
        k = bisect.bisect_right(starts, c) - 1
        return offsets[k] + (c - starts[k])

    def source(c0: int, c1: int) -> str:
        return text[source_offset(c0) : source_offset(c1)]

    built = _Builder()
    c = 0
    skip_to_link_close = False
    for child in token.children or []:
        kind = child.type
        if skip_to_link_close:
            skip_to_link_close = kind != "link_close"
            continue
        if kind == "text":
            if not content.startswith(child.content, c):
                raise _Unaligned(f"text {child.content[:30]!r} not at {c}")
            built.text(child.content)
            c += len(child.content)
        elif kind in ("softbreak", "hardbreak"):
            match = _BREAK.match(content, c)
            if match is None:
                raise _Unaligned(f"no line break at {c}")
            built.atom(source(c, match.end()))
            c = match.end()
        elif kind == "text_special" or kind == "html_inline":
            raw = child.markup if kind == "text_special" else child.content
            if not content.startswith(raw, c):
                raise _Unaligned(f"{kind} {raw!r} not at {c}")
            built.atom(raw)
            c += len(raw)
        elif kind == "code_inline":
            end = _code_span_end(content, c, child.markup)
            built.atom(source(c, end))
            c = end
        elif kind in ("em_open", "strong_open", "s_open"):
            _expect(content, c, child.markup)
            built.open_pair(child.markup)
            c += len(child.markup)
        elif kind in ("em_close", "strong_close", "s_close"):
            _expect(content, c, child.markup)
            built.close_pair(child.markup)
            c += len(child.markup)
        elif kind == "link_open" and child.markup == "autolink":
            end = content.find(">", c) + 1
            if not content.startswith("<", c) or end == 0:
                raise _Unaligned(f"no autolink at {c}")
            built.atom(source(c, end))
            c = end
            skip_to_link_close = True
        elif kind == "link_open":
            _expect(content, c, "[")
            built.open_pair("[")
            c += 1
        elif kind == "link_close":
            _expect(content, c, "]")
            end = _link_tail_end(content, c + 1)
            built.close_pair(source(c, end))
            c = end
        elif kind == "image":
            _expect(content, c, "![")
            end = _link_tail_end(content, _label_end(content, c + 2))
            built.atom(source(c, end))
            c = end
        else:
            raise _Unaligned(f"unmapped inline token {kind}")
    if c != len(content) or built.open:
        raise _Unaligned("the inline tokens do not cover the content")
    segment = Segment(tuple(built.parts), built.markup)
    return source_offset(0), source_offset(len(content)), segment


def _expect(content: str, c: int, markup: str) -> None:
    if not content.startswith(markup, c):
        raise _Unaligned(f"{markup!r} not at {c}")


def _code_span_end(content: str, c: int, ticks: str) -> int:
    _expect(content, c, ticks)
    closing = re.compile(rf"(?<!`){re.escape(ticks)}(?!`)")
    match = closing.search(content, c + len(ticks))
    if match is None:
        raise _Unaligned(f"unclosed code span at {c}")
    return match.end()


def _label_end(content: str, c: int) -> int:
    """Index just past the ``]`` that closes a label whose text starts at ``c``."""
    depth = 1
    while c < len(content):
        char = content[c]
        if char == "\\":
            c += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return c + 1
        c += 1
    raise _Unaligned("unclosed link label")


def _skip_space(content: str, c: int) -> int:
    while c < len(content) and content[c] in " \t\n":
        c += 1
    return c


def _link_tail_end(content: str, c: int) -> int:
    """Index just past a link's destination part: ``(url "title")``, ``[ref]`` or nothing."""
    if content.startswith("(", c):
        position = _skip_space(content, c + 1)
        destination = parseLinkDestination(content, position, len(content))
        if destination.ok:
            position = _skip_space(content, destination.pos)
            title = parseLinkTitle(content, position, len(content))
            if title.ok and title.pos != position:
                position = _skip_space(content, title.pos)
        if content.startswith(")", position):
            return position + 1
    if content.startswith("[", c):
        end = content.find("]", c)
        if end >= 0:
            return end + 1
    return c
