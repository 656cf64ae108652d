"""A clause keeps the polarity of what it restates (``summarize/polarity.py``)."""

from __future__ import annotations

import pytest

from tests.superpowers.summarize.test_ledger_check import checked


def test_a_denial_no_message_makes_goes() -> None:
    messages = [("c", "I want to buy a pet."), ("a", "Try the pet store on Main Street.")]
    assert checked(messages, "Ana does not want to buy a pet.") == ""


def test_a_denial_a_message_makes_stays() -> None:
    messages = [("c", "I don't want to buy a pet."), ("a", "Fair enough.")]
    assert checked(messages, "Ana does not want to buy a pet.") == "Ana does not want to buy a pet."


def test_a_later_clause_that_denies_wrongly_is_cut() -> None:
    messages = [
        ("c", "Can we change the channel? The ads are awful."),
        ("a", "OK, change it to the talk show."),
    ]
    draft = "Ana asks to change the channel, and Bo does not want the talk show."
    assert checked(messages, draft) == "Ana asks to change the channel."


def test_a_denial_of_what_no_message_mentions_is_left_to_the_other_checks() -> None:
    messages = [("c", "Hello."), ("a", "Hi, how can I help?")]
    assert checked(messages, "Ana does not say much.") == "Ana does not say much."


def test_a_thing_every_message_denies_is_not_asserted() -> None:
    messages = [
        ("c", "My flight got cancelled. Can you cover a hotel?"),
        ("a", "I've rebooked you on the 7 AM flight. I'm not able to provide a hotel voucher."),
    ]
    draft = "Ana asks for a hotel, and Bo gives Ana a hotel voucher."
    assert checked(messages, draft) == "Ana asks for a hotel."


def test_a_thing_an_act_is_denied_on_is_still_there() -> None:
    messages = [
        ("c", "Can you drop the overdraft fee?"),
        ("a", "The fee team can't override the 12-month rule."),
    ]
    assert checked(messages, "Bo cites the 12-month rule.") == "Bo cites the 12-month rule."


BELIEVED = [
    ("c", "I believe you have charged me twice for the same thing."),
    ("a", "I'll go and check it."),
]


@pytest.mark.parametrize(
    ("draft", "expected"),
    [
        ("Ana complains, but Bo charges Ana twice for the same thing.", "Ana complains."),
        (
            "Ana believes Bo charged her twice for the same thing.",
            "Ana believes Bo charged her twice for the same thing.",
        ),
    ],
)
def test_a_belief_is_reported_as_one_or_not_at_all(draft: str, expected: str) -> None:
    assert checked(BELIEVED, draft) == expected
