from __future__ import annotations

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import cast_speakers
from threadwise.superpowers.summarize.checks import check_draft
from threadwise.superpowers.summarize.ledger import build_ledger
from threadwise.superpowers.summarize.outcome import state_outcome

CHAT = (
    ("c", "Hi, my charger stopped working, order VW-558213."),
    ("a", "Sorry to hear that. Can you try another charger?"),
    ("c", "Another charger works fine."),
    ("a", "Thanks. I've approved a warranty replacement charger at no cost."),
    ("c", "Great, thanks."),
)


def summarized(
    draft: str,
    lines: tuple[tuple[str, str], ...] = CHAT,
    names: dict[str, str] | None = None,
) -> tuple[str, str | None]:
    names = names or {"c": "Ethan", "a": "Kenji"}
    roles = {key: "Agent" if key == "a" else "Customer" for key in names}
    chat = transcript(*lines, names=names, roles=roles)
    cast = cast_speakers(chat)
    checked = check_draft(draft, chat.renamed(cast.names), cast, "paragraph")
    added = state_outcome(
        checked, build_ledger(chat.messages), chat.messages, cast.names, cast.write_back
    )
    return checked.text("paragraph"), added


def test_a_summary_that_stops_before_the_outcome_gets_it_from_the_agent_s_words() -> None:
    text, added = summarized("Ethan reports a broken charger. Kenji asks him to try another one.")
    assert added is not None
    assert text.endswith("Kenji has approved a warranty replacement charger at no cost.")


def test_a_summary_that_states_the_outcome_is_left_as_it_is() -> None:
    draft = "Ethan reports a broken charger (order VW-558213); Kenji approves a free replacement."
    text, added = summarized(draft)
    assert added is None
    assert text == draft


def test_a_refusal_in_so_many_words_is_the_outcome() -> None:
    lines = (
        ("c", "I was charged a $35 overdraft fee and I want it removed."),
        (
            "a",
            "You had this year's courtesy waiver. So I'm not able to refund this fee.",
        ),
        ("c", "That's disappointing."),
    )
    text, added = summarized("Ethan asks to remove a $35 overdraft fee.", lines)
    assert added is not None
    assert text.endswith("Kenji is not able to refund this fee.")


def test_a_service_told_to_two_customers_is_their_outcome() -> None:
    lines = (
        ("c", "Our hotel in Lisbon was cancelled. What are our options?"),
        ("a", "I can move you to Casa Alfama, or refund the hotel."),
        ("j", "We'll go with Casa Alfama, please."),
        ("a", "Done: you're booked at Casa Alfama from April 9 to 14, breakfast included."),
    )
    names = {"c": "Carlos", "j": "Julia", "a": "Ingrid"}
    draft = "Carlos reports the cancelled hotel; Julia asks about Casa Alfama."
    text, added = summarized(draft, lines, names)
    assert added is not None
    assert text.endswith(
        "Carlos and Julia are booked at Casa Alfama from April 9 to 14, breakfast included."
    )


def test_an_estimate_of_a_pending_request_is_stated_with_its_time() -> None:
    lines = (
        ("c", "My internet has been down since 7 this morning."),
        ("a", "There is an outage in your area. The estimated restore time is 6:00 PM today."),
        ("c", "OK, thanks."),
    )
    text, added = summarized("Ethan reports his internet is down; Kenji finds an outage.", lines)
    assert added == "The estimated restore time is 6:00 PM today."
    assert text.endswith(added)
    told = "Ethan's internet is down until 6:00 PM, when Kenji expects it restored."
    assert summarized(told, lines)[1] is None
