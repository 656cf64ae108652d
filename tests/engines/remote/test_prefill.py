from __future__ import annotations

import pytest

from threadwise.engines.base import ChatMessage
from threadwise.engines.remote.prefill import EchoFilter, with_instruction


def filtered(start: str, pieces: list[str]) -> str:
    echo = EchoFilter(start)
    return "".join(echo.feed(p) for p in pieces) + echo.finish()


@pytest.mark.parametrize(
    ("pieces", "continuation"),
    [
        (["Sum", "mary", ":", " Ana", " asks."], " Ana asks."),  # repeated, in pieces
        (["  Summary: Ana asks."], " Ana asks."),
        (["Ana", " asks."], " Ana asks."),  # not repeated
        (["Sum", "s are due."], " Sums are due."),  # began like it, then did not
        (["Summ"], ""),  # repeated part of it and stopped
        ([], ""),
    ],
)
def test_a_repeated_start_is_dropped(pieces: list[str], continuation: str) -> None:
    assert filtered("Summary:", pieces) == continuation


def test_notes_repeated_whole_or_only_their_last_line() -> None:
    start = "Issue: late parcel\nSummary:"
    assert filtered(start, ["Issue: late", " parcel\nSummary: Ana waits."]) == " Ana waits."
    assert filtered(start, ["Summary:", " Ana waits."]) == " Ana waits."
    # A line of the notes is not an echo unless the answer repeats from it to the end.
    assert filtered(start, ["late parcel again."]) == " late parcel again."


def test_numbered_lines() -> None:
    assert filtered("1.", ["1. Hola\n", "2. Adiós"]) == " Hola\n2. Adiós"
    assert filtered("1.", ["Hola"]) == " Hola"


def test_the_instruction_goes_to_the_last_user_message() -> None:
    chat: list[ChatMessage] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Summarize: …"},
    ]
    asked = with_instruction(chat, "Summary:")
    assert asked[:1] == chat[:1] and len(asked) == 2
    assert asked[1]["content"].startswith("Summarize: …") and '"Summary:"' in asked[1]["content"]
    assert chat[1]["content"] == "Summarize: …"  # not changed in place
    after_answer = with_instruction([*chat, {"role": "assistant", "content": "…"}], "a\nb")
    assert after_answer[-1]["role"] == "user" and after_answer[-1]["content"].endswith("a\nb")
