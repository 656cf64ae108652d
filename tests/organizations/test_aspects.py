"""An organization's own summary aspects, checked before they are stored."""

from __future__ import annotations

import pytest

from threadwise.organizations.aspects import (
    MAX_EXAMPLE_ANSWER,
    MAX_INSTRUCTION,
    CustomAspect,
    checked_aspect,
)

TONE = CustomAspect("customerTone", "How the customer sounds.", "Ana: Hi", "Calm.")


def test_the_fields_are_stripped() -> None:
    padded = CustomAspect(" customerTone ", " How the customer sounds.\n", " Ana: Hi", "Calm. ")
    assert checked_aspect(padded) == TONE


@pytest.mark.parametrize(
    ("aspect", "message"),
    [
        (CustomAspect("1tone", "x", "y", "z"), "a letter followed by"),
        (CustomAspect("t" * 41, "x", "y", "z"), "a letter followed by"),
        (CustomAspect("tone me", "x", "y", "z"), "a letter followed by"),
        (CustomAspect("ISSUE", "x", "y", "z"), "built-in aspect"),
        (CustomAspect("tone", " ", "y", "z"), "instruction must not be empty"),
        (CustomAspect("tone", "x", "", "z"), "example conversation must not be empty"),
        (CustomAspect("tone", "x" * (MAX_INSTRUCTION + 1), "y", "z"), "instruction has at most"),
        (CustomAspect("tone", "x", "y", "z" * (MAX_EXAMPLE_ANSWER + 1)), "answer has at most"),
    ],
)
def test_mistakes_are_refused_with_what_to_fix(aspect: CustomAspect, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        checked_aspect(aspect)


def test_the_longest_fields_are_accepted() -> None:
    longest = CustomAspect("t" * 40, "x" * MAX_INSTRUCTION, "y", "z" * MAX_EXAMPLE_ANSWER)
    assert checked_aspect(longest) == longest
