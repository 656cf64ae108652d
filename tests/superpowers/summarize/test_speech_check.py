"""Who asked, proposed, answered, apologized or gave an ID: the clause's subject is the
speaker whose messages did it (``summarize/speech_check.py``), through ``check_draft``."""

from __future__ import annotations

import pytest

from tests.superpowers.summarize.test_ledger_check import checked
from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import cast_speakers
from threadwise.superpowers.summarize.checks import check_draft

BEACH = [
    ("c", "Are you free on Sunday? My friends and I are going to the beach, want to come?"),
    ("a", "That'd be fantastic! Which beach?"),
    ("c", "A quiet one an hour outside the city."),
]


@pytest.mark.parametrize(
    ("messages", "draft", "expected"),
    [
        (BEACH, "Bo invites Ana to the beach on Sunday.", "Ana invites Bo to the beach on Sunday."),
        (
            [("c", "Can I have the bill, please?"), ("a", "Certainly, here it is.")],
            "Bo asks for the bill.",
            "Ana asks for the bill.",
        ),
        (
            [("c", "My order A-20931 never came."), ("a", "Let me check order A-20931.")],
            "Bo provides the order ID A-20931.",
            "Ana provides the order ID A-20931.",
        ),
        (
            [("c", "You charged me twice."), ("a", "I'm so sorry about that.")],
            "Ana apologizes for the double charge.",
            "Bo apologizes for the double charge.",
        ),
    ],
)
def test_the_speaker_who_did_the_act_is_its_subject(
    messages: list[tuple[str, str]], draft: str, expected: str
) -> None:
    assert checked(messages, draft) == expected


def test_an_answer_nobody_gave_goes() -> None:
    messages = [
        ("c", "We're obviously not ready to get a pet yet."),
        ("a", "You're right. Let's go grab some coffee and talk about it."),
    ]
    draft = "Bo says they are not ready for a pet, and Ana agrees to grab coffee."
    assert checked(messages, draft) == "Bo says they are not ready for a pet."


def test_an_act_denied_that_the_subject_did_goes() -> None:
    messages = [("c", "You charged me twice."), ("a", "I'm so sorry about that.")]
    assert checked(messages, "Bo does not apologize.") == ""


def test_an_act_both_speakers_did_is_left_alone() -> None:
    messages = [
        ("c", "Can we change the channel?"),
        ("a", "OK. Can you change it to Channel Twelve?"),
    ]
    assert checked(messages, "Bo asks to change the channel.") == "Bo asks to change the channel."


def test_agreeing_to_what_nobody_proposed_goes() -> None:
    messages = [("c", "Loan me that tape recorder you have."), ("a", "You can't be serious.")]
    assert checked(messages, "Ana asks for the tape recorder, and Bo agrees to help.") == (
        "Ana asks for the tape recorder."
    )


def test_a_service_opener_is_the_offer_of_help() -> None:
    messages = [
        ("a", "What can I do for you today?"),
        ("c", "I need to buy a new refrigerator today."),
    ]
    draft = "Ana offers to help Bo buy a new refrigerator."
    assert checked(messages, draft) == "Bo offers to help Ana buy a new refrigerator."


def test_asking_the_other_to_help_when_the_subject_offered_it_is_an_offer() -> None:
    messages = [
        ("c", "Mom! How can I help with the washing up?"),
        ("a", "You peel the onions and wash them."),
    ]
    draft = "Ana asks Bo to help with the washing up, who tells her to peel the onions."
    assert checked(messages, draft) == (
        "Ana offers to help Bo with the washing up, who tells her to peel the onions."
    )


def test_asking_for_help_stays_a_request() -> None:
    messages = [("c", "Can you help me with the washing up?"), ("a", "Sure.")]
    draft = "Ana asks Bo to help with the washing up."
    assert checked(messages, draft) == draft


def test_a_yes_no_question_nobody_asked_goes() -> None:
    messages = [
        ("c", "I'm afraid you can't smoke here."),
        ("a", "Why not?"),
        ("c", "Can't you see the notice?"),
    ]
    draft = "Ana asks Bo if he can smoke. Ana points to the notice."
    assert checked(messages, draft) == "Ana points to the notice."


def test_a_yes_no_question_someone_asked_stays() -> None:
    messages = [("c", "Can I smoke here?"), ("a", "No, sorry.")]
    draft = "Ana asks Bo if she can smoke."
    assert checked(messages, draft) == draft


def test_a_sentence_whose_first_clause_goes_goes_whole() -> None:
    messages = [
        ("c", "I'm afraid you can't smoke here."),
        ("a", "Why not? I'm sorry, I can't read the notice."),
    ]
    draft = "Bo apologizes. Ana asks Bo if he can smoke, but Bo says he can't due to the notice."
    assert checked(messages, draft) == "Bo apologizes."


def test_a_joined_yes_no_question_nobody_asked_goes() -> None:
    messages = [
        ("c", "Hi, is this the Bread and Cheese Deli? Can you deliver?"),
        ("a", "Yes, we deliver orders over $15."),
    ]
    draft = "Bo confirms the deli delivers and asks if the order is over $15."
    assert checked(messages, draft) == "Bo confirms the deli delivers."
    # A bare verb left says nothing: the sentence goes.
    assert checked(messages, "Ana calls the deli. Bo confirms and asks if it is over $15.") == (
        "Ana calls the deli."
    )


def test_being_unable_after_saying_yes_goes() -> None:
    messages = [
        ("c", "An exhibition of Picasso's paintings is on. Do you want to go with me?"),
        ("a", "How can I miss it! But with the buses on strike, we have to take the subway."),
    ]
    draft = "Ana invites Bo to a Picasso exhibition, but Bo is unable to go."
    assert checked(messages, draft) == "Ana invites Bo to a Picasso exhibition."


def test_being_unable_after_saying_no_stays() -> None:
    messages = [("c", "Do you want to go to the exhibition?"), ("a", "Sorry, I can't go.")]
    draft = "Ana invites Bo to the exhibition, but Bo is unable to go."
    assert checked(messages, draft) == draft


def test_gratitude_nobody_expressed_goes() -> None:
    messages = [
        ("c", "I was glad to hear about your award, congratulations!"),
        ("a", "Thanks. I was really surprised."),
        ("c", "You've worked there so long. You deserve it."),
    ]
    draft = "Ana congratulates Bo on the award and expresses gratitude for the hard work."
    assert checked(messages, draft) == "Ana congratulates Bo on the award."


def test_a_joined_suggestion_is_given_to_who_made_it() -> None:
    messages = [
        ("c", "I'm so hungry. Is the hot pot place open?"),
        ("a", "How about the Mongolian hot pot?"),
    ]
    draft = "Ana says she is hungry and suggests the Mongolian hot pot."
    assert checked(messages, draft) == (
        "Ana says she is hungry, and Bo suggests the Mongolian hot pot."
    )


def test_agreeing_in_a_relative_clause_to_what_was_turned_down_is_turned() -> None:
    messages = [
        ("c", "How about the Mongolian hot pot?"),
        ("a", "Oh, it's too spicy for me. My eyes teared up last time."),
        ("c", "Maybe the Yuanyang pot then. You can choose the non-spicy soup."),
        ("a", "Sounds great."),
    ]
    draft = "Ana suggests the Mongolian hot pot, which Bo agrees to."
    assert checked(messages, draft) == "Ana suggests the Mongolian hot pot, which Bo turns down."


def test_an_adverb_before_the_first_predicate_is_no_join() -> None:
    messages = [("c", "I'm afraid you can't smoke here."), ("a", "Why not?")]
    draft = "Bo apologizes. Ana then asks if he can smoke."
    assert checked(messages, draft) != "Bo apologizes. Ana."
    assert not checked(messages, draft).endswith("Ana.")


def test_asking_about_what_no_question_named_goes() -> None:
    messages = [
        ("c", "So how did he handle it?"),
        ("a", "His excuse was familiar. He said his car died again."),
        ("c", "So what was the damage."),
    ]
    draft = "Ana asks about the car trouble. Ana asks about the damage."
    assert checked(messages, draft) == "Ana asks about the damage."


def test_inviting_the_listener_when_others_were_invited_is_restated() -> None:
    messages = [
        ("c", "The Johnsons are on their way back. You remember them, don't you?"),
        ("a", "Johnson? I can't place them."),
        ("c", "Well, I've invited them for brunch."),
    ]
    draft = "Ana invites Bo to brunch with the Johnsons, but Bo can't place them."
    assert checked(messages, draft) == (
        "Ana has invited the Johnsons to brunch, but Bo can't place them."
    )


def test_in_a_group_a_suggestion_goes_to_the_one_who_offered_it() -> None:
    chat = transcript(
        ("c", "Our hotel cancelled our stay. What are our options?"),
        ("a", "I can offer two: move you to Casa Alfama, same dates, or refund the nights."),
        ("j", "We'll go with option 1, Casa Alfama, please."),
        names={"c": "Carlos Mendoza", "j": "Julia Mendoza", "a": "Ingrid"},
        roles={"c": "EndUser", "j": "EndUser", "a": "Agent"},
    )
    cast = cast_speakers(chat)
    draft = "Julia suggests Casa Alfama as an alternative."
    text = check_draft(draft, chat.renamed(cast.names), cast, "paragraph").text("paragraph")
    assert text == "Ingrid suggests Casa Alfama as an alternative."
