"""Who is to be called, and from where (``summarize/contact.py``), through ``check_draft``."""

from __future__ import annotations

from tests.superpowers.summarize.test_ledger_check import checked


def test_an_agent_who_wrote_call_us_is_the_company() -> None:
    messages = [
        ("c", "And if it still doesn't work after I restart it?"),
        ("a", "Then reply in this chat or call us and we'll book a visit."),
    ]
    draft = "Ana will restart the router and call Bo if the issue persists."
    assert checked(messages, draft) == (
        "Ana will restart the router and call the company if the issue persists."
    )


def test_an_agent_who_wrote_call_me_stays() -> None:
    messages = [("c", "What if it fails?"), ("a", "Call me or call us on the hotline.")]
    draft = "Ana will call Bo if it fails."
    assert checked(messages, draft) == draft


def test_a_caller_calls_from_where_they_said_they_are() -> None:
    messages = [
        ("c", "I'm phoning from the airport here. I'd like to reserve a single room."),
        ("a", "Reservation desk. Certainly, sir."),
    ]
    draft = "Ana calls Bo at the airport to reserve a single room."
    assert checked(messages, draft) == "Ana calls Bo from the airport to reserve a single room."
