"""Who did what, checked without the model: subjects against the messages behind them."""

from __future__ import annotations

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.attribution import Attributor

CHAT = transcript(
    ("c", "Hello, I want a refund for order 48213, the blender arrived broken."),
    ("a", "Sorry about that! I can send a replacement or refund you."),
    ("c", "The replacement, please."),
    ("a", "Done, I have sent it today."),
    ("c", "You charged me twice for shipping, by the way."),
    names={"c": "Ana", "a": "Bo"},
)


def attributor() -> Attributor:
    return Attributor(CHAT.messages, {s: s.name for s in CHAT.speakers})


def test_a_request_given_to_the_wrong_speaker_is_given_back() -> None:
    checked = attributor().check("Bo asks for a refund for order 48213.")
    assert checked.fixed and checked.text == "Ana asks for a refund for order 48213."


def test_subject_and_object_are_swapped_together() -> None:
    checked = attributor().check("Bo wants Ana to refund order 48213.")
    assert checked.text == "Ana wants Bo to refund order 48213."


def test_right_sentences_are_left_alone() -> None:
    for sentence in (
        "Ana asks for a refund for order 48213 because the blender arrived broken.",
        "Bo offers a replacement or a refund, and Ana chooses the replacement.",
        "Bo sends the replacement today.",
        "Bo charged Ana twice for shipping.",  # "you charged me": the other person did
    ):
        checked = attributor().check(sentence)
        assert not checked.fixed and checked.kept and checked.text == sentence


def test_what_someone_did_is_judged_by_its_verb_with_i_and_you_resolved() -> None:
    checked = attributor().check("Ana charged Bo twice for shipping.")
    assert checked.text == "Bo charged Ana twice for shipping."


def test_unclear_clauses_are_not_changed() -> None:
    for sentence in (
        "Ana will get the replacement.",  # what someone will do: asked of them by the other
        "Bo does not refund the order.",  # a denial answers the other's words
        "They agree on a replacement.",
    ):
        assert attributor().check(sentence).text == sentence


def test_evidence_is_the_messages_sharing_the_sentence_s_words() -> None:
    checked = attributor().check("Ana asks for a refund for order 48213.")
    first = checked.messages[0]
    assert (first.speaker.name, first.index) == ("Ana", 0)
    assert attributor().check("They talk.").messages == []


CLINIC = transcript(
    ("p", "Excuse me. I want to pay the bill."),
    ("c", "Your bill comes to one hundred yuan. Here is the receipt."),
    ("p", "Can I use the restroom before I go to the lab?"),
    ("c", "Sure, it is over there. Hurry up, the lab closes at five."),
    ("p", "Should we take the train?"),
    ("c", "No, the train is slow. Let me grab a cab downstairs."),
    names={"p": "Ana", "c": "Bo"},
)


def clinic() -> Attributor:
    return Attributor(CLINIC.messages, {s: s.name for s in CLINIC.speakers})


def test_asking_the_other_to_do_what_the_subject_wanted_becomes_a_wish() -> None:
    checked = clinic().check("Ana asks Bo to pay her bill.")
    assert checked.fixed and checked.text == "Ana wants to pay her bill."
    # Asking the other to do what the other did stays.
    assert clinic().check("Bo asks Ana to hurry up.").text == "Bo asks Ana to hurry up."


def test_a_later_predicate_someone_else_s_is_dropped() -> None:
    checked = clinic().check("Bo gives Ana the receipt and asks her to use the restroom first.")
    assert checked.fixed and checked.text == "Bo gives Ana the receipt."


def test_a_wrong_predicate_after_an_undecided_verb_swaps_the_clause() -> None:
    checked = clinic().check(
        "Ana suggests the train, but Ana is doubtful and suggests grabbing a cab."
    )
    assert checked.text == "Ana suggests the train, but Bo is doubtful and suggests grabbing a cab."


MIXED = transcript(
    ("c", "Hola, me cobraron dos veces la factura 7734 de este mes."),
    ("a", "Hi Lucía, sorry about that. I see both charges and I will refund one today."),
    ("c", "Perfecto, muchas gracias."),
    names={"c": "Lucía", "a": "Daniel"},
)


def test_a_message_in_another_language_is_read_in_english() -> None:
    sentence = "Lucía asks Daniel to refund her two charges for the same invoice."
    names = {s: s.name for s in MIXED.speakers}
    # As written, only the agent's English shares the clause's words: "refund", "charges".
    as_written = Attributor(MIXED.messages, names).check(sentence)
    assert as_written.text == "Daniel asks Lucía to refund her two charges for the same invoice."
    read = MIXED.read(["Hello, they charged me twice the bill 7734 of this month.", None, None])
    assert Attributor(read.messages, names).check(sentence).text == sentence


def test_evidence_cites_a_message_by_its_english_reading() -> None:
    sentence = "Lucía says she was charged twice for the bill 7734."
    names = {s: s.name for s in MIXED.speakers}
    read = MIXED.read(["Hello, they charged me twice the bill 7734 of this month.", None, None])
    cited = Attributor(read.messages, names).evidence(sentence)
    assert cited and cited[0].index == 0
    assert cited[0].text.startswith("Hola")  # cited as the request wrote it


PUB = transcript(
    ("a", "I passed the exam! Let's celebrate tonight at the pub."),
    ("b", "Great news, that sounds fun."),
    names={"a": "Ana", "b": "Bo"},
)


def test_one_of_two_subjects_is_never_swapped_into_the_other() -> None:
    # Was "Ana and Ana celebrate": Bo's clause was checked alone and given to Ana.
    attributor = Attributor(PUB.messages, {s: s.name for s in PUB.speakers})
    for sentence in ("Ana and Bo celebrate at the pub.", "Bo, Ana celebrate at the pub."):
        assert attributor.check(sentence).text == sentence


NEWS = transcript(
    ("a", "I won the lottery, a million dollars!"),
    ("b", "Get out of here! You're kidding me!"),
    ("a", "No, really. I quit my job today."),
    names={"a": "Ana", "b": "Bo"},
)


def test_an_exclamation_is_no_one_s_act() -> None:
    # "You're kidding" said in surprise: no evidence that Ana kids anyone.
    attributor = Attributor(NEWS.messages, {s: s.name for s in NEWS.speakers})
    assert "kid" not in attributor.done.users and "kid" not in attributor.acts.users
    assert attributor.check("Bo kids Ana about her news.").text == "Bo kids Ana about her news."
