"""The words the attribution check compares: stems, content words, weights."""

from __future__ import annotations

import pytest

from threadwise.superpowers.summarize import clause_words


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("sends", "send"),
        ("sent", "send"),
        ("running", "run"),
        ("stopped", "stop"),
        ("replies", "reply"),
        ("A-20931", "A20931"),
        ("is", "is"),
    ],
)
def test_stem(word: str, expected: str) -> None:
    assert clause_words.stem(word) == expected


def test_content_words_leave_out_what_says_little() -> None:
    assert clause_words.content_words("She sent Tom's invoice 7734 to the bank") == [
        "send",
        "tom",
        "invoice",
        "7734",
        "bank",
    ]


def test_ids_and_numbers_weigh_most() -> None:
    assert clause_words.weight("7734") > clause_words.weight("invoice")


def test_verbs_keep_all_but_function_words() -> None:
    assert clause_words.verbs("he has booked the rooms for us") == ["book", "room"]
