"""The draft summary passed on while the model writes it."""

from __future__ import annotations

import pytest

from threadwise.superpowers.summarize.streaming import DraftStream, summary_so_far


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Issue: a broken router.\nSummary: Bo sends", "Bo sends"),
        ("Ana asks for a refund.", "Ana asks for a refund."),
        ("Iss", ""),  # perhaps the start of the notes
        ("Issue: a broken router.", ""),
        ("Summ", ""),  # the label, being written
    ],
)
def test_only_the_summary_part_is_passed_on(text: str, expected: str) -> None:
    assert summary_so_far(text) == expected


def test_each_new_partial_is_sent_once_as_the_cumulative_text() -> None:
    sent: list[str] = []
    stream = DraftStream(sent.append, present=str.upper)
    on_text = stream.step(summary_so_far)
    assert on_text is not None
    for piece in ["Issue: x\n", "Summary:", " Ana", " asks", ""]:
        on_text(piece)
    assert sent == ["ANA", "ANA ASKS"]
    assert stream.sent == "ANA ASKS"


def test_later_generations_are_not_streamed() -> None:
    sent: list[str] = []
    stream = DraftStream(sent.append)
    assert stream.step(str.strip) is not None  # nothing sent yet: still streaming
    first = stream.step(str.strip)
    assert first is not None
    first("A draft.")
    assert stream.step(str.strip) is None
    assert sent == ["A draft."]
