"""A clause that denies must restate a denial (``summarize/polarity.py``)."""

from __future__ import annotations

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
