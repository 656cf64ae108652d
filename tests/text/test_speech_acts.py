from __future__ import annotations

import pytest

from threadwise.text.speech_acts import Doer, Mood, Reply, acts, reply


@pytest.mark.parametrize(
    ("text", "mood", "doer", "verb"),
    [
        ("I will speak to the professor tomorrow.", Mood.PROMISED, Doer.SPEAKER, "speak"),
        ("Let me check that for you.", Mood.PROMISED, Doer.SPEAKER, "check"),
        ("Could you fill out this form, please?", Mood.ASKED, Doer.OTHER, "fill"),
        ("Please restart the router.", Mood.ASKED, Doer.OTHER, "restart"),
        ("I can send you a replacement.", Mood.OFFERED, Doer.SPEAKER, "send"),
        ("Shall I call a taxi?", Mood.OFFERED, Doer.SPEAKER, "call"),
        ("Why don't we take the express train?", Mood.SUGGESTED, Doer.BOTH, "take"),
        ("You should see a doctor.", Mood.SUGGESTED, Doer.OTHER, "see"),
        ("I'd like to book a room.", Mood.WANTED, Doer.SPEAKER, "book"),
        ("Can I pay by card?", Mood.WANTED, Doer.SPEAKER, "pay"),
        ("I have already booked a table for two.", Mood.DONE, Doer.SPEAKER, "book"),
        ("I bought this dress yesterday.", Mood.DONE, Doer.SPEAKER, "buy"),
        ("Your order has been shipped.", Mood.DONE, Doer.NOBODY, "ship"),
        ("You charged me twice!", Mood.DONE, Doer.OTHER, "charge"),
        ("No, I can't make it tonight.", Mood.REFUSED, Doer.SPEAKER, "make"),
        ("I'm so bored.", Mood.STATED, Doer.SPEAKER, "bored"),
        ("I've rebooked you on NA 418.", Mood.DONE, Doer.SPEAKER, "rebook"),
        ("So I'm not able to refund this fee.", Mood.REFUSED, Doer.SPEAKER, "refund"),
        ("Done: you're booked at Casa Alfama.", Mood.DONE, Doer.NOBODY, "book"),
        ("I'll just go and check it for you, sir.", Mood.PROMISED, Doer.SPEAKER, "check"),
        ("My flight tomorrow morning got cancelled.", Mood.DONE, Doer.NOBODY, "cancel"),
        ("You become more and more impatient with me.", Mood.STATED, Doer.OTHER, "impatient"),
    ],
)
def test_each_form_is_read_as_its_act(text: str, mood: Mood, doer: Doer, verb: str) -> None:
    found = acts(text)
    assert (found[0].mood, found[0].doer, found[0].verb) == (mood, doer, verb)


def test_what_an_act_is_about_is_its_content_words() -> None:
    (act,) = acts("I will send the replacement router to your office.")
    assert {"replacement", "router", "office"} <= act.words


@pytest.mark.parametrize(
    "text", ["I think so.", "It costs $580.", "I can't wait!", "You know what I mean."]
)
def test_opinions_prices_and_enthusiasm_are_no_acts(text: str) -> None:
    assert [a for a in acts(text) if a.mood is not Mood.STATED] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sure, that sounds great!", Reply.ACCEPTS),
        ("No, thanks.", Reply.REFUSES),
        ("I'm afraid we can't do that.", Reply.REFUSES),
        ("Here you are.", Reply.HANDS_OVER),
        ("No problem at all.", Reply.ACCEPTS),
        ("I can't wait to see it!", None),
        ("The weather is nice.", None),
    ],
)
def test_a_message_opening_answers_the_other(text: str, expected: Reply | None) -> None:
    assert reply(text) is expected


def test_hostile_text_is_read_in_bounded_time() -> None:
    assert len(acts("I will send " * 20_000)) <= 2_000
    assert acts("." * 50_000) == []


def test_a_passive_about_the_speakers_own_thing_is_marked_theirs() -> None:
    [cancelled] = acts("Hi, my flight got cancelled.")
    [shipped] = acts("Your order has been shipped.")
    assert (cancelled.own, cancelled.addressee) == (True, False)
    assert (shipped.own, shipped.addressee) == (False, True)


def test_going_somewhere_is_still_an_act_of_going() -> None:
    [going] = acts("We'll go to the cinema.")
    assert (going.mood, going.verb) == (Mood.PROMISED, "go")
