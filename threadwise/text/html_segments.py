"""Split an HTML or XML message into the text an engine translates and the markup kept as written.

HTML: block elements (``p``, ``li``, ``td``…) bound the segments; inline elements (``a``,
``b``, ``span``…) travel as tag pairs standing for their exact source tags; void elements
(``br``, ``img``) and protected text (``text.protected``) as atoms. XML (DeepL's
``tag_handling=xml``): every element is inline, and segments are cut where elements are
separated by whitespace holding a line break, or text by a blank line. In both, what must
not be translated is copied: comments, declarations, processing instructions, elements
marked ``translate="no"`` or ``class="notranslate"``, and in HTML the content of ``script``,
``style``, ``pre``, ``code`` and ``textarea``.

Engines read the text with its character references decoded (``&amp;`` → ``&``); their
words are encoded again when rendered (``text.escaping.escape_html``), and an untranslated
segment is its source exactly. Malformed markup never raises: a tag that cannot be paired
within its segment is an atom.
"""

from __future__ import annotations

import bisect
import html
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from itertools import accumulate
from typing import Literal

from threadwise.protocol import TextFormat
from threadwise.text.protected import protected_spans
from threadwise.text.segmented import Segment, SegmentedMessage
from threadwise.text.tagged import Part, Tag, has_words

log = logging.getLogger(__name__)

# fmt: off
# Elements that start and end a block of text: never inside a segment.
_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "colgroup", "col",
    "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
    "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header",
    "hgroup", "hr", "html", "iframe", "legend", "li", "link", "main", "menu", "meta", "nav",
    "noscript", "ol", "optgroup", "option", "p", "section", "select", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul", "video", "audio", "object",
    "base",
})
# Elements without content that sit inside a line of text.
_VOID = frozenset({
    "br", "img", "wbr", "input", "area", "embed", "source", "track", "param", "keygen",
})
# fmt: on
# HTML elements whose content is code or preformatted: copied, never translated.
_VERBATIM = frozenset({"script", "style", "pre", "code", "textarea"})
# Block-level among the copied ones: a segment ends before them.
_VERBATIM_BLOCK = frozenset({"script", "style", "pre", "textarea"})
_NEWLINE_SPACE = re.compile(r"[ \t\r\f]*\n\s*")
_BLANK_LINE = re.compile(r"\n[ \t\r\f]*\n\s*")

TokenKind = Literal["text", "ref", "start", "startend", "end", "other"]


@dataclass
class _Token:
    kind: TokenKind
    start: int
    name: str = ""
    attributes: list[tuple[str, str | None]] = field(default_factory=list)
    length: int | None = None  # a start tag's own length, where the parser says it
    source: str = ""


class _Tokenizer(HTMLParser):
    """The parser's events, each with where it starts in the text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.tokens: list[_Token] = []

    def _at(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        length = len(self.get_starttag_text() or "")
        self.tokens.append(_Token("start", self._at(), tag, attrs, length))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        length = len(self.get_starttag_text() or "")
        self.tokens.append(_Token("startend", self._at(), tag, attrs, length))

    def handle_endtag(self, tag: str) -> None:
        self.tokens.append(_Token("end", self._at(), tag))

    def handle_data(self, data: str) -> None:
        self.tokens.append(_Token("text", self._at()))

    def handle_entityref(self, name: str) -> None:
        self.tokens.append(_Token("ref", self._at()))

    handle_charref = handle_entityref

    def handle_comment(self, data: str) -> None:
        """A comment, and as well a declaration or processing instruction: copied."""
        self.tokens.append(_Token("other", self._at()))

    handle_pi = unknown_decl = handle_comment

    def handle_decl(self, decl: str) -> None:
        self.handle_comment(decl)


def _tokens(text: str) -> list[_Token]:
    """The text as tokens whose sources, in order, are the text exactly."""
    parser = _Tokenizer(text)
    parser.feed(text)
    parser.close()
    found = list(parser.tokens)
    out: list[_Token] = []
    if not found or found[0].start != 0:  # text the parser left unsaid: kept as text
        found.insert(0, _Token("text", 0))
    for token, following in zip(found, [*found[1:], None], strict=True):
        end = following.start if following is not None else len(text)
        if end <= token.start:
            continue
        token.source = text[token.start : end]
        out.append(token)
        own = token.length
        if own is not None and 0 < own < len(token.source):
            # What the parser left after a tag (an unclosed <script>'s content) is text.
            rest = _Token("text", token.start + own, source=token.source[own:])
            token.source = token.source[:own]
            out.append(rest)
    return out


@dataclass
class _Item:
    """A token of a run of inline content: text (with its decoded form), a tag, an atom."""

    kind: Literal["text", "open", "close", "atom"]
    source: str
    decoded: str = ""
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind == "text" and not self.decoded:
            self.decoded = self.source  # literal text: what it says is what it is


class HtmlSegmenter:
    """HTML (``xml=False``) or XML messages as segments."""

    def __init__(self, *, xml: bool = False) -> None:
        self.xml = xml
        self.text_format: TextFormat = "xml" if xml else "html"

    def segment(self, text: str) -> SegmentedMessage:
        try:
            found = _tokens(text)
        except Exception:  # the parser is lenient; this is a guard, not a path
            log.exception("could not tokenize a message as %s; kept as written", self.text_format)
            found = []
        if "".join(t.source for t in found) != text:
            return SegmentedMessage(text, (text,) if text else (), (), self.text_format)
        walk = _Walk(self.xml, self.text_format)
        walk.run_over(found)
        pieces = tuple(p for p in walk.pieces if p != "")
        return SegmentedMessage(text, pieces, tuple(walk.segments), self.text_format)


class _Walk:
    """Tokens to verbatim pieces and segments."""

    def __init__(self, xml: bool, text_format: TextFormat) -> None:
        self.xml = xml
        self.text_format = text_format
        self.pieces: list[str | int] = []
        self.segments: list[Segment] = []
        self.run: list[_Item] = []

    def run_over(self, found: Sequence[_Token]) -> None:
        index = 0
        while index < len(found):
            token = found[index]
            if token.kind == "start" and self._kept(token):
                end = _closing(found, index)
                source = "".join(t.source for t in found[index : end + 1])
                if not self.xml and (token.name in _VERBATIM_BLOCK or token.name in _BLOCK):
                    self._verbatim(source)
                else:  # inside a line: the sentence stays whole around it
                    self.run.append(_Item("atom", source))
                index = end + 1
                continue
            self._token(token)
            index += 1
        self._flush()

    def _kept(self, token: _Token) -> bool:
        """Whether an element is copied as written, content and all."""
        if not self.xml and token.name in _VOID:
            return False  # no content to copy
        if not self.xml and token.name in _VERBATIM:
            return True
        attributes = dict(token.attributes)
        classes = (attributes.get("class") or "").split()
        return (attributes.get("translate") or "").lower() == "no" or "notranslate" in classes

    def _token(self, token: _Token) -> None:
        kind, name, source = token.kind, token.name, token.source
        if kind == "text":
            self._text(source)
        elif kind == "ref":
            self.run.append(_Item("text", source, html.unescape(source)))
        elif kind == "other":
            self.run.append(_Item("atom", source))
        elif not self.xml and name in _BLOCK:
            self._verbatim(source)
        elif kind == "startend" or (not self.xml and name in _VOID):
            self.run.append(_Item("atom", source))
        else:
            self.run.append(_Item("open" if kind == "start" else "close", source, name=name))

    def _text(self, source: str) -> None:
        if self.xml:
            if not source.strip() and "\n" in source:
                self._verbatim(source)  # elements apart, on lines of their own
                return
            position = 0
            for blank in _BLANK_LINE.finditer(source):
                if blank.start() > position:
                    self.run.append(_Item("text", source[position : blank.start()]))
                self._verbatim(blank.group())
                position = blank.end()
            source = source[position:]
        if source:
            self.run.append(_Item("text", source))

    def _verbatim(self, source: str) -> None:
        self._flush()
        self.pieces.append(source)

    def _flush(self) -> None:
        run, self.run = [piece for item in self.run for piece in _spaced(item)], []
        partner = _pairs(run)
        first, last = _trimmed(run, partner)
        inner = run[first:last]
        self.pieces.append("".join(i.source for i in run[:first]))
        if has_words(("".join(i.decoded for i in inner if i.kind == "text"),)):
            self.pieces.append(len(self.segments))
            self.segments.append(self._segment(inner, first, partner))
        else:
            self.pieces.append("".join(i.source for i in inner))
        self.pieces.append("".join(i.source for i in run[last:]))

    def _segment(self, inner: Sequence[_Item], offset: int, partner: dict[int, int]) -> Segment:
        built = _Builder()
        opened: dict[int, Tag] = {}
        texts: list[_Item] = []
        for index, item in enumerate(inner, offset):
            if item.kind == "text":
                texts.append(item)
                continue
            built.text(texts)
            texts = []
            if index not in partner:
                built.add(Tag(built.next_id(), "atom"), item.source)
            elif item.kind == "open":
                opened[index] = Tag(built.next_id(), "open")
                built.add(opened[index], item.source)
            else:
                built.add(Tag(opened[partner[index]].id, "close"), item.source)
        built.text(texts)
        original = "".join(i.source for i in inner)
        return Segment(tuple(built.parts), built.markup, self.text_format, original)


def _spaced(item: _Item) -> list[_Item]:
    """Literal text as its leading space, words and trailing space: the space at a segment's
    ends stays outside it, as written."""
    if item.kind != "text" or item.decoded != item.source or not item.source.strip():
        return [item]
    words = item.source.strip()
    lead = item.source[: len(item.source) - len(item.source.lstrip())]
    trail = item.source[len(item.source.rstrip()) :]
    return [_Item("text", piece) for piece in (lead, words, trail) if piece]


def _closing(found: Sequence[_Token], index: int) -> int:
    """The index of the end tag of the element ``found[index]`` starts (else the last)."""
    name, depth = found[index].name, 0
    for at in range(index, len(found)):
        token = found[at]
        if token.name == name and token.kind == "start":
            depth += 1
        elif token.name == name and token.kind == "end":
            depth -= 1
            if depth == 0:
                return at
    return len(found) - 1


def _pairs(run: Sequence[_Item]) -> dict[int, int]:
    """Each paired tag's index to its partner's: an end tag closes the nearest open element
    of its name, and what was opened after that one and not closed is no pair."""
    partner: dict[int, int] = {}
    stack: list[int] = []
    # Open elements by name: a stray end tag is told at once, not by a search of the stack
    # (linear in the run: each open tag leaves the stack once).
    open_names: Counter[str] = Counter()
    for index, item in enumerate(run):
        if item.kind == "open":
            stack.append(index)
            open_names[item.name] += 1
        elif item.kind == "close" and open_names[item.name]:
            while True:
                opened = stack.pop()
                open_names[run[opened].name] -= 1
                if run[opened].name == item.name:
                    break
            partner[opened], partner[index] = index, opened
    return partner


def _trimmed(run: Sequence[_Item], partner: dict[int, int]) -> tuple[int, int]:
    """(first, last): the run's part an engine sees. Space, atoms, unpaired tags and a pair
    around all of it stay outside, copied."""

    def loose(index: int) -> bool:
        item = run[index]
        if item.kind == "text":
            return not item.decoded.strip()
        return index not in partner

    first, last = 0, len(run)
    while first < last:
        if loose(first):
            first += 1
        elif loose(last - 1):
            last -= 1
        elif partner.get(first) == last - 1:
            first, last = first + 1, last - 1
        else:
            break
    return first, last


class _Builder:
    """A segment's parts and markup, tags numbered in order of appearance."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.markup: dict[Tag, str] = {}
        self._next = 0

    def next_id(self) -> int:
        self._next += 1
        return self._next

    def add(self, tag: Tag, source: str) -> None:
        self.parts.append(tag)
        self.markup[tag] = source

    def text(self, chunks: Sequence[_Item]) -> None:
        """A run of text and references: words decoded, protected spans atoms of their
        source."""
        decoded = "".join(c.decoded for c in chunks)
        source = "".join(c.source for c in chunks)
        decoded_starts = list(accumulate((len(c.decoded) for c in chunks), initial=0))
        source_starts = list(accumulate((len(c.source) for c in chunks), initial=0))

        def source_at(position: int, *, end: bool) -> int:
            k = bisect.bisect_right(decoded_starts, position - 1 if end else position) - 1
            k = min(max(k, 0), len(chunks) - 1)
            if chunks[k].decoded == chunks[k].source:  # literal text: character for character
                return source_starts[k] + position - decoded_starts[k]
            return source_starts[k + 1] if end else source_starts[k]  # a reference: whole

        position = 0
        for start, end in protected_spans(decoded):
            self._words(decoded[position:start])
            atom = source[source_at(start, end=False) : source_at(end, end=True)]
            self.add(Tag(self.next_id(), "atom"), atom)
            position = end
        self._words(decoded[position:])

    def _words(self, words: str) -> None:
        # Line breaks and no-break spaces are spacing in HTML: one space to an engine.
        words = _NEWLINE_SPACE.sub(" ", words).replace("\xa0", " ")
        if not words:
            return
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] += words
        else:
            self.parts.append(words)
