from __future__ import annotations

import pytest

from threadwise.superpowers.summarize.facts import check_facts, identifiers, unsupported_words

EVIDENCE = (
    "Hi, we were charged twice: INV-10442 and INV-10443, both $49.99. Hannah Lindqvist. "
    "Oliver will email on Thursday, March 19. Rachel's pet store."
)


def test_supported_numbers_ids_and_names_pass() -> None:
    summary = (
        "Hannah Lindqvist reports two $49.99 charges, INV-10442 and INV-10443. Oliver will "
        "email her on March 19; she may visit Rachel's store."
    )
    assert check_facts(summary, EVIDENCE).ok


def test_invented_numbers_ids_and_names_are_listed() -> None:
    check = check_facts(
        "Hannah paid $59.99 for INV-10444; Oliver from Amazon refunded it.", EVIDENCE
    )
    assert check.unsupported == ("$59.99", "INV-10444", "Amazon")


def test_names_can_be_skipped_for_other_languages() -> None:
    assert check_facts("Der Kunde Hannah zahlte $49.99.", EVIDENCE, names=False).ok
    assert not check_facts("Der Kunde Hannah zahlte $49.99.", EVIDENCE).ok


def test_identifiers_are_ids_not_amounts_or_dates() -> None:
    text = (
        "Maya gives order 58213 and INV-10443, A-20931, pays $49.99 on March 19 at 6:00 PM, "
        "2-3 days, 1st, flight NA 418, code SAVE10, a 30-day window, 2003, 12/03/2026, PIN 4711"
    )
    assert identifiers(text) == ["58213", "INV-10443", "A-20931", "SAVE10", "4711"]


def test_placeholders_of_redacted_values_must_be_the_conversations_own() -> None:
    evidence = "Please call [PERSON_1] on [PHONE_1]; order 2."
    assert check_facts("Ana asks to call [PERSON_1] on [PHONE_1].", f"Ana: {evidence}").ok
    # [PERSON_2] is no value of this conversation, though its digit occurs there.
    assert check_facts("Ana asks to call [PERSON_2].", f"Ana: {evidence}").unsupported == (
        "[PERSON_2]",
    )


@pytest.mark.parametrize(
    ("summary", "evidence"),
    [
        ("Ana calls on Monday.", "I'll call you on Tuesday."),
        ("Bo shows three tables.", "Here are 2 tables, and here is the other two."),
        ("Ana asks for a ninth date.", "Shall we go on a second date?"),
        (
            "Bo offers a 1 percent cut.",
            "I can give you a 2 percent cut if you order 1 more pallet.",
        ),
    ],
)
def test_a_weekday_or_number_the_conversation_never_says_is_unsupported(
    summary: str, evidence: str
) -> None:
    assert unsupported_words(summary, evidence)


@pytest.mark.parametrize(
    ("summary", "evidence"),
    [
        ("Bo charged Ana two times.", "You charged me twice!"),
        ("Ana pays on Monday.", "Pago el lunes."),
        ("Maria and Jane meet in Feb.", "See you in February, Maria."),
        ("The refund arrives in 5-7 days.", "It takes 5 to 7 days."),
        ("Bo calls at 5 am.", "I'll call around 5:00 AM."),
    ],
)
def test_what_the_conversation_says_in_other_words_is_supported(
    summary: str, evidence: str
) -> None:
    assert unsupported_words(summary, evidence) == ()
