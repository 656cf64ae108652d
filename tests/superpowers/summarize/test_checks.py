from __future__ import annotations

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import cast_speakers
from threadwise.superpowers.summarize.checks import check_draft

CHAT = transcript(
    ("c", "Hi, my order 48213 never came, ticket TCK-20391 says so."),
    ("a", "I see it. I have reshipped it today, it costs you nothing."),
    names={"c": "Ana", "a": "Bo"},
)


def test_sentences_with_invented_facts_or_names_are_dropped() -> None:
    cast = cast_speakers(CHAT)
    checked = check_draft(
        "Ana reports order 48213 missing. Bo refunds $50. Oren reships it.",
        CHAT.renamed(cast.names),
        cast,
        "paragraph",
    )
    assert checked.text("paragraph") == "Ana reports order 48213 missing."
    assert len(checked.dropped) == 2


def test_an_id_is_put_back_after_what_it_identifies() -> None:
    cast = cast_speakers(CHAT)
    checked = check_draft(
        "Ana's order never came; Bo reships it. The ticket is noted.",
        CHAT.renamed(cast.names),
        cast,
        "paragraph",
    )
    assert checked.text("paragraph") == (
        "Ana's order 48213 never came; Bo reships it. The ticket TCK-20391 is noted."
    )


def test_bullets_are_checked_line_by_line() -> None:
    cast = cast_speakers(CHAT)
    checked = check_draft(
        "- Ana reports order 48213 missing.\n- Zed pays 5 dollars.", CHAT, cast, "bullets"
    )
    assert checked.text("bullets") == "- Ana reports order 48213 missing."


def test_an_id_whose_noun_the_summary_lacks_closes_the_first_clause_citing_it() -> None:
    cast = cast_speakers(CHAT)
    checked = check_draft(
        "Ana's parcel never came, and Bo reships it.", CHAT.renamed(cast.names), cast, "paragraph"
    )
    assert checked.text("paragraph") == (
        "Ana's parcel never came (order 48213), and Bo reships it."
    )
