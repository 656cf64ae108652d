"""Markdown segmentation: round trips, what engines see, and property tests (hypothesis)."""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from random import Random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import DATA
from threadwise.text.markdown_segments import MarkdownSegmenter, escape_markdown, is_plain
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.protected import protected_counts
from threadwise.text.tagged import Part, Parts, Tag, parse_tags, to_tagged

SEGMENTER = MarkdownSegmenter()
CORPUS: list[str] = json.loads((DATA / "markdown_corpus.json").read_text(encoding="utf-8"))
DONE_WHEN = (
    "Sure! Please send me:\n1. Your **order number**\n2. A photo\n\n"
    "See [our policy](https://example.com/returns?id=7) or run `status --all` 👍"
)


def caesar(text: str) -> str:
    """A predictable 'translation': every ASCII letter shifted by one."""
    shift = string.ascii_lowercase[1:] + "a" + string.ascii_uppercase[1:] + "A"
    return text.translate(str.maketrans(string.ascii_letters, shift))


def translated(message: str, engine: Callable[[str], str]) -> str:
    """``message`` with every segment's text through ``engine``, tags kept in place."""
    segmented = SEGMENTER.segment(message)
    rendered = []
    for segment in segmented.segments:
        parts: Parts = tuple(engine(p) if isinstance(p, str) else p for p in segment.parts)
        rendered.append(segment.render(parts))
    return segmented.render(rendered)


def test_done_when_message_sends_only_words_to_the_engine() -> None:
    segmented = SEGMENTER.segment(DONE_WHEN)
    assert [to_tagged(s.parts) for s in segmented.segments] == [
        "Sure! Please send me:",
        "Your <g1>order number</g1>",
        "A photo",
        "See <g1>our policy</g1> or run <x2/> <x3/>",
    ]
    link = segmented.segments[3]
    assert link.markup[Tag(1, "close")] == "](https://example.com/returns?id=7)"
    assert link.markup[Tag(2, "atom")] == "`status --all`"
    assert link.markup[Tag(3, "atom")] == "👍"


def test_protected_text_never_reaches_the_engine() -> None:
    message = (
        "Hi @maria, mail a.b@example.com or see https://x.org/a_(b). {{name}} {0} %s %(count)d "
        ":smile: 👩‍💻 👍🏽 `code` <b>bold</b> ![logo](l.png) \\* &amp;"
    )
    engine_sees = "".join(
        p for s in SEGMENTER.segment(message).segments for p in s.parts if isinstance(p, str)
    )
    for kept in (
        "@maria",
        "a.b@example.com",
        "https://x.org/a_(b)",
        "{{name}}",
        "{0}",
        "%s",
        "%(count)d",
        ":smile:",
        "👩‍💻",
        "👍🏽",
        "code",
        "<b>",
        "l.png",
        "\\*",
        "&amp;",
    ):
        assert kept not in engine_sees, kept
    assert "Hi" in engine_sees and "bold" in engine_sees


def test_code_blocks_tables_and_markers_are_copied() -> None:
    message = "| a | b |\n|---|--:|\n| one | two |\n\n```py\nprint('hi')\n```\n\n3. three\n"
    segmented = SEGMENTER.segment(message)
    assert [s.source() for s in segmented.segments] == ["a", "b", "one", "two", "three"]
    assert all("print" not in p for p in segmented.pieces if isinstance(p, str)) is False


def test_corpus_round_trips_and_survives_a_predictable_engine() -> None:
    for message in CORPUS:
        assert translated(message, lambda t: t) == message
        out = translated(message, caesar)
        assert out != message
        assert structure_problems(message, out) == [], (message, out)


def test_structure_check_catches_broken_markdown() -> None:
    assert structure_problems(DONE_WHEN, DONE_WHEN.replace("**", "*", 1))
    assert structure_problems(DONE_WHEN, DONE_WHEN.replace("returns?id=7", "returns?id=8"))
    assert structure_problems(DONE_WHEN, DONE_WHEN.replace("👍", ""))
    assert structure_problems(DONE_WHEN, DONE_WHEN.replace("2. A photo", "2. A photo\n3. More"))
    assert structure_problems(DONE_WHEN, caesar(DONE_WHEN)) != []  # the code span changed


def test_escaping_keeps_translated_words_from_becoming_markup() -> None:
    assert escape_markdown("5 * 3 = [x] _y_") == "5 \\* 3 = \\[x\\] \\_y\\_"
    assert escape_markdown("1. not a list") == "1\\. not a list"


# --- property tests ------------------------------------------------------------------------

WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=7)
WORDS = st.lists(WORD, min_size=1, max_size=5).map(" ".join)
PROTECTED = st.sampled_from(
    [
        "`x = 1`",
        "https://example.com/a?b=1",
        "ana@example.com",
        "@bo",
        "👍",
        "{{name}}",
        "{0}",
        "%s",
        "%(n)d",
        ":smile:",
        "<b>",
        "&amp;",
    ]
)


@st.composite
def inline(draw: st.DrawFn) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["words", "strong", "em", "link", "protected", "strike"]))
        words = draw(WORDS)
        pieces.append(
            {
                "words": words,
                "strong": f"**{words}**",
                "em": f"*{words}*",
                "strike": f"~~{words}~~",
                "link": f'[{words}](https://example.com/{len(words)} "t")',
                "protected": draw(PROTECTED),
            }[kind]
        )
    return " ".join(pieces)


@st.composite
def markdown(draw: st.DrawFn) -> str:
    blocks = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["para", "list", "olist", "quote", "heading", "table", "code"]))
        items = draw(st.lists(inline(), min_size=1, max_size=3))
        if kind == "para":
            blocks.append("\n".join(items))
        elif kind == "list":
            blocks.append("\n".join(f"- {i}" for i in items))
        elif kind == "olist":
            start = draw(st.integers(1, 9))
            blocks.append("\n".join(f"{start + n}. {i}" for n, i in enumerate(items)))
        elif kind == "quote":
            blocks.append("\n".join(f"> {i}" for i in items))
        elif kind == "heading":
            blocks.append(f"{'#' * draw(st.integers(1, 3))} {items[0]}")
        elif kind == "table":
            row = " | ".join(items)
            blocks.append(f"| {row} |\n|{'---|' * len(items)}\n| {row} |")
        else:
            blocks.append(f"```\n{items[0]}\n```")
    return "\n\n".join(blocks)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown())
def test_property_round_trip_and_structure_kept(message: str) -> None:
    assert translated(message, lambda t: t) == message
    out = translated(message, caesar)
    assert structure_problems(message, out) == [], (message, out)
    assert protected_counts(out) == protected_counts(message)


@settings(max_examples=100, deadline=None)
@given(markdown(), st.randoms(use_true_random=False))
def test_property_tags_moved_by_an_engine_still_give_valid_markdown(
    message: str, rnd: Random
) -> None:
    """An engine may reorder words; wherever the atoms land, the structure holds."""
    segmented = SEGMENTER.segment(message)
    rendered = []
    for segment in segmented.segments:
        parts = list(segment.parts)
        atoms = [p for p in parts if isinstance(p, Tag) and p.kind == "atom"]
        rest: list[Part] = [p for p in parts if not (isinstance(p, Tag) and p.kind == "atom")]
        for atom in atoms:
            rest.insert(rnd.randrange(len(rest) + 1), atom)
        moved = parse_tags(to_tagged(rest), segment.tags)
        assert moved is not None
        rendered.append(segment.render(moved))
    assert protected_counts(segmented.render(rendered)) == protected_counts(message)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_property_any_text_round_trips(text: str) -> None:
    segmented = SEGMENTER.segment(text)
    assert segmented.render([s.source() for s in segmented.segments]) == text


# Chat-like text: words, sentence punctuation, digits, and now and then a character that
# makes it Markdown or protected (so both sides of is_plain are drawn).
_CHATTY = st.text(
    alphabet=st.sampled_from(
        [
            *(string.ascii_letters + string.digits + " .,;:!?'\"()-+=/%@{}&*_`#>|~[]\\\n\t"),
            *("é", "ñ", "ü", "¿", "¡", "👍", "\u00a0", "\x00"),
        ]
    ),
    max_size=80,
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_CHATTY, st.text(max_size=60)))
def test_property_plain_text_is_segmented_as_the_parser_would(text: str) -> None:
    """The shortcut for plain text gives what the parser gives, and plain really is plain."""
    if not is_plain(text):
        return
    assert SEGMENTER.segment(text) == SEGMENTER.parsed(text)
    assert protected_counts(text) == protected_counts("")
    if text.strip():
        assert structure_problems(text, "Words") == []  # one paragraph of plain text


@settings(max_examples=300, deadline=None)
@given(_CHATTY, _CHATTY)
def test_property_two_plain_texts_have_the_same_structure(source: str, translation: str) -> None:
    """Why a plain translation of a plain message needs no structure check."""
    if is_plain(source) and is_plain(translation) and source.strip() and translation.strip():
        assert structure_problems(source, translation) == []


def test_plain_chat_messages_skip_the_parser_and_markdown_does_not() -> None:
    assert is_plain("Hi! Could you tell me where my order is? It has not arrived yet.")
    assert is_plain("¿Dónde está mi pedido 4417? Llegó roto, 50% del precio.")
    for markdown in (
        "Send **it**",
        "1. first",
        "- item",
        "see https://example.com",
        "mail a@b.co",
        "hi @sam",
        "ok 👍",
        "{{name}}",
        "two\nlines",
        " indented",
        "# title",
        "a | b",
        "Tom &amp; Jerry",
        "100%s",
    ):
        assert not is_plain(markdown), markdown
