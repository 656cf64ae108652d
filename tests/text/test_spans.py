from __future__ import annotations

import pytest

from threadwise.text.found import Found
from threadwise.text.spans import DisjointSpans, NormalizedText


def test_spans_that_overlap_one_taken_are_refused() -> None:
    spans = DisjointSpans()
    assert spans.take(10, 20) and spans.take(0, 5) and spans.take(20, 25)
    assert not spans.take(4, 11) and not spans.take(19, 21)
    assert spans.free(5, 10) and not spans.free(24, 30)


@pytest.mark.parametrize(
    ("original", "normal"),
    [
        ("plain ASCII text", "plain ASCII text"),
        ("\uff14\uff11\uff11\uff11\u3000\uff41\uff20\uff42", "4111 a@b"),  # full-width
        ("4111\u00a01111\u202f1111\u20091111", "4111 1111 1111 1111"),  # no-break spaces
        ("4111\u20131111\u20111111\u22121111", "4111-1111-1111-1111"),  # dashes
        ("ma\u200bria\u200c\u200d\u2060\ufeff\u00ad", "maria"),  # invisible characters
        ("Jose\u0301 and Jos\u00e9", "Jos\u00e9 and Jos\u00e9"),  # a combining accent
        ("2\u00ba Esq., 5\u00ba 2\u00aa", "2\u00ba Esq., 5\u00ba 2\u00aa"),  # ordinals kept
    ],
)
def test_the_normal_form_is_what_detectors_read(original: str, normal: str) -> None:
    assert NormalizedText(original).text == normal


def test_a_span_maps_back_to_the_characters_it_came_from() -> None:
    original = "card \uff14\uff11\u200b\uff11\uff11 and Jose\u0301 \ufb01ne"
    normal = NormalizedText(original)
    assert normal.text == "card 4111 and Jos\u00e9 fine"
    # Invisible characters inside a span, and just before it, are part of it.
    assert normal.span(5, 9) == (5, 10)
    assert original[slice(*normal.span(5, 9))] == "\uff14\uff11\u200b\uff11\uff11"
    # A character made of two (e and its accent) maps to both.
    assert original[slice(*normal.span(14, 18))] == "Jose\u0301"
    # Part of a character that became two (the ligature fi) maps to all of it.
    assert original[slice(*normal.span(20, 23))] == "\ufb01ne"
    assert original[slice(*normal.span(19, 21))] == "\ufb01"


def test_an_invisible_character_before_a_span_is_part_of_it() -> None:
    normal = NormalizedText("mail \ufeffmaya@example.com")
    found = normal.in_original(Found("EMAIL", 5, len(normal.text), "maya@example.com"))
    assert found == Found("EMAIL", 5, 22, "\ufeffmaya@example.com")


def test_adjacent_spans_stay_apart() -> None:
    normal = NormalizedText("ab\u200bcd")
    assert normal.span(0, 2) == (0, 2) and normal.span(2, 4) == (2, 5)
