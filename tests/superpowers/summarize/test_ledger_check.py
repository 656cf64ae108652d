from __future__ import annotations

import pytest

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import cast_speakers
from threadwise.superpowers.summarize.checks import check_draft


def checked(messages: list[tuple[str, str]], draft: str) -> str:
    chat = transcript(*messages, names={"c": "Ana", "a": "Bo"})
    cast = cast_speakers(chat)
    return check_draft(draft, chat.renamed(cast.names), cast, "paragraph").text("paragraph")


@pytest.mark.parametrize(
    ("messages", "draft", "expected"),
    [
        (
            [("c", "My grade is wrong."), ("a", "I will speak to the professor tomorrow.")],
            "Bo speaks to the professor about the grade.",
            "Bo will speak to the professor about the grade.",
        ),
        (
            [("c", "I need a passport."), ("a", "Could you fill out this form?"), ("c", "Sure.")],
            "Ana fills out the form.",
            "Ana will fill out the form.",
        ),
        (
            [("c", "The router is broken."), ("a", "I can send you a replacement router.")],
            "Bo sends Ana a replacement router.",
            "Bo offers to send Ana a replacement router.",
        ),
        (
            [("c", "Where is my refund?"), ("a", "I have sent the refund to your card.")],
            "Bo will send the refund to Ana's card.",
            "Bo sends the refund to Ana's card.",
        ),
    ],
)
def test_an_act_is_written_in_the_state_the_messages_leave_it(
    messages: list[tuple[str, str]], draft: str, expected: str
) -> None:
    assert checked(messages, draft) == expected


def test_what_was_done_stays_done() -> None:
    messages = [("c", "Could you fill out this form?"), ("a", "OK, I have filled out the form.")]
    assert checked(messages, "Bo fills out the form.") == "Bo fills out the form."


def test_a_declined_offer_reported_as_done_goes() -> None:
    messages = [
        ("c", "The router is broken."),
        ("a", "I can send you a replacement router."),
        ("c", "No, thanks, I'd rather get a refund."),
    ]
    assert checked(messages, "Bo sends Ana a replacement router.") == ""


@pytest.mark.parametrize(
    ("answer", "draft", "expected"),
    [
        ("No, I can't, I'm so tired.", "Ana agrees to go to the cinema.", "Ana declines to go"),
        ("Sure, sounds great.", "Ana refuses to go to the cinema.", "Ana agrees to go"),
    ],
)
def test_an_answer_is_reported_as_given(answer: str, draft: str, expected: str) -> None:
    messages = [("a", "Why don't we go to the cinema tonight?"), ("c", answer)]
    assert checked(messages, draft).startswith(expected)


def test_a_state_is_given_to_who_said_it_of_themselves() -> None:
    messages = [("a", "I'm so bored with this job."), ("c", "Why don't you quit?")]
    assert checked(messages, "Ana is bored with the job.") == "Bo is bored with the job."


def test_a_choice_answering_a_question_is_not_held_as_a_promise() -> None:
    messages = [("a", "How do you want to send it?"), ("c", "I'll send it by airmail.")]
    assert checked(messages, "Ana sends it by airmail.") == "Ana sends it by airmail."


def test_a_clause_the_ledger_does_not_hold_is_left_alone() -> None:
    messages = [("c", "Hello."), ("a", "Hi, how can I help?")]
    assert checked(messages, "Bo greets Ana warmly.") == "Bo greets Ana warmly."


def test_an_act_set_for_later_is_written_as_still_to_happen() -> None:
    messages = [("c", "Where is my money?"), ("a", "The refund goes out in a day or two.")]
    assert checked(messages, "Bo refunds Ana in a day or two.") == (
        "Bo will refund Ana in a day or two."
    )


def test_an_id_the_subject_already_gave_is_given() -> None:
    messages = [("c", "Hi, it's about order A-20931."), ("a", "Thanks, let me look.")]
    assert checked(messages, "Ana will provide the order ID A-20931.") == (
        "Ana provides the order ID A-20931."
    )


def test_an_offer_nobody_made_goes() -> None:
    messages = [("c", "The lid was missing."), ("a", "The warehouse will look into it.")]
    assert checked(messages, "Bo offers to refund the lid.") == ""


def test_what_happened_to_the_subjects_own_thing_is_not_their_act() -> None:
    messages = [
        ("c", "Hi, my flight tomorrow got cancelled."),
        ("a", "Sorry about that. I've rebooked you on the next flight."),
    ]
    assert checked(messages, "Ana cancels her flight.") == "Ana's flight is cancelled."


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I've added a credit of $8.50 to your next bill.", "Bo adds a credit for the downtime."),
        ("Done. The credit is applied.", "Bo applies a credit for the downtime."),
        ("The credit is now on your account.", "Bo gives a credit for the downtime."),
        ("I can add a credit of $8.50 to your next bill.", "Bo offers a credit for the downtime."),
    ],
)
def test_an_offer_of_what_was_given_is_told_as_given(said: str, expected: str) -> None:
    messages = [("c", "My internet is down since this morning."), ("a", said)]
    assert checked(messages, "Bo offers a credit for the downtime.") == expected


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "Done: a low-balance text alert at $100 is now active on your account.",
            "Bo sets up a text alert at $100 and advises Ana to turn on overdraft protection.",
        ),
        (
            "You can set up a text alert yourself in the app.",
            "Bo advises Ana to set up a text alert at $100 and turn on overdraft protection.",
        ),
    ],
)
def test_advice_to_do_what_the_adviser_reported_done_is_told_as_done(
    said: str, expected: str
) -> None:
    messages = [("c", "Make it $100."), ("a", said)]
    draft = "Bo advises Ana to set up a text alert at $100 and turn on overdraft protection."
    assert checked(messages, draft) == expected


def test_a_consequential_act_no_message_names_goes() -> None:
    messages = [("c", "You charged me twice for the same thing."), ("a", "I'll go and check it.")]
    draft = "Bo checks the charge, then refunds Ana the extra charge."
    assert checked(messages, draft) == "Bo will check the charge."


def test_an_act_is_looked_for_in_the_english_reading_of_another_language() -> None:
    chat = transcript(
        ("c", "Me cobraron dos veces."),
        ("a", "Ya le he reembolsado el cargo."),
        names={"c": "Ana", "a": "Bo"},
    ).read(["They charged me twice.", "I have already refunded the charge."])
    cast = cast_speakers(chat)
    draft = "Bo refunds the charge."
    assert check_draft(draft, chat.renamed(cast.names), cast, "paragraph").text("paragraph") == (
        draft
    )


def test_a_pronoun_for_the_one_speaker_named_before_is_checked_as_them() -> None:
    messages = [
        ("c", "Why was I charged a fee? Make the alert $100."),
        ("a", "The fee is for the overdraft. Done: a text alert at $100 is now active."),
    ]
    draft = "Bo explains the overdraft fee. He advises Ana to set up a text alert at $100."
    assert checked(messages, draft) == (
        "Bo explains the overdraft fee. He sets up a text alert at $100."
    )


def test_a_result_of_what_is_still_to_happen_goes() -> None:
    messages = [
        ("c", "I believe you charged me twice for the same thing."),
        ("a", "I'll just go and check it for you, sir."),
    ]
    draft = "Bo checks the charges and confirms the mistake."
    assert checked(messages, draft) == "Bo will check the charges."


def test_an_act_promised_for_later_in_other_words_is_not_done() -> None:
    messages = [
        ("c", "That's fine. Do I get overtime?"),
        ("a", "Of course. Come in early tomorrow and I'll show you how to do the scheduling."),
    ]
    draft = "Bo provides training on scheduling."
    assert checked(messages, draft) == "Bo will provide training on scheduling."


def test_a_joined_act_promised_for_later_is_not_done() -> None:
    messages = [
        ("c", "I could really use a raise. That's fine."),
        ("a", "OK. Come in early tomorrow and I'll show you how to do the scheduling."),
    ]
    draft = "Bo agrees to the raise and provides training on scheduling."
    assert checked(messages, draft) == (
        "Bo agrees to the raise and will provide training on scheduling."
    )
