"""Plain-text segmentation: paragraphs, line breaks and protected text kept, nothing escaped."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from threadwise.text.plain_segments import PlainSegmenter
from threadwise.text.tagged import Tag, to_tagged

SEGMENTER = PlainSegmenter()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.ascii_letters + " \t\n\r*_#<>&.1-" + "👍", max_size=60))
def test_any_text_round_trips_byte_for_byte(text: str) -> None:
    message = SEGMENTER.segment(text)
    assert message.render([s.source() for s in message.segments]) == text
    assert message.render([s.render(s.parts) for s in message.segments]) == text


def test_paragraphs_are_segments_and_line_breaks_atoms() -> None:
    text = "  Hello *there*\nsee https://example.com 👍  \n\n\n# Not a heading <b>\n"
    message = SEGMENTER.segment(text)
    assert [to_tagged(s.parts) for s in message.segments] == [
        "Hello *there*<x1/>see <x2/> <x3/>",
        "# Not a heading <b>",
    ]
    assert message.pieces == ("  ", 0, "  ", "\n\n\n", 1, "\n")
    assert message.segments[0].markup[Tag(1, "atom")] == "\n"


def test_translated_words_are_written_as_they_are() -> None:
    [segment] = SEGMENTER.segment("Price: 5 * 3").segments
    assert segment.render(("1. Precio: 5 * 3 <b> & _x_",)) == "1. Precio: 5 * 3 <b> & _x_"


def test_nothing_to_translate_is_no_segment() -> None:
    assert SEGMENTER.segment("\n 👍 12 \n\n").segments == ()
