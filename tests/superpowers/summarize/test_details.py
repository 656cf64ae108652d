from __future__ import annotations

from threadwise.superpowers.summarize.details import cut_details
from threadwise.text.speech_acts import content_words

SAID = content_words("I'd like a room for tonight. My mom is coming with me. The traffic was bad.")


def test_a_place_the_conversation_never_names_is_cut_with_its_phrase() -> None:
    details = cut_details("Alex books a room at the hotel for tonight.", SAID)
    assert details.text == "Alex books a room for tonight."


def test_a_relation_in_another_form_is_no_invention() -> None:
    sentence = "Alex comes with his mother."
    assert cut_details(sentence, SAID).text == sentence


def test_an_invented_relation_goes_with_its_phrase() -> None:
    details = cut_details("Alex comes with his girlfriend.", SAID)
    assert details.text == "Alex comes."


def test_a_reason_none_of_whose_words_were_said_is_cut() -> None:
    assert cut_details("Alex is late due to a storm.", SAID).text == "Alex is late."
    said = "Alex is late because of the traffic."
    assert cut_details(said, SAID).text == said


def test_a_sentence_about_an_invented_person_is_dropped() -> None:
    assert cut_details("His girlfriend calls Alex.", SAID).text is None


def test_a_topic_never_mentioned_is_cut_from_its_list() -> None:
    said = content_words("I've been studying for my exams. How are your parents? Fine, thanks.")
    details = cut_details("They chat about life, including their studies, work, and family.", said)
    assert details.text == "They chat about life, including their studies."
    assert details.cut == ["work", "family"]


def test_a_topic_whose_head_was_never_mentioned_is_cut() -> None:
    said = content_words("What was the damage? I have to have the wall repaired.")
    details = cut_details("Alex asks about the damage and repair costs.", said)
    assert details.text == "Alex asks about the damage."


def test_a_list_of_acts_is_no_list_of_topics() -> None:
    said = content_words("I don't know the cause. Please go to the lab for blood tests.")
    sentence = "Alex is not sure of the cause and sends Bobby to the lab."
    assert cut_details(sentence, said).text == sentence


def test_a_reason_only_half_said_is_cut() -> None:
    said = content_words("A dog is a lot of work: walks every day, and cleaning up after it.")
    assert cut_details("Alex declines due to work commitments.", said).text == "Alex declines."
    kept = "Alex declines due to the work of daily walks."
    assert cut_details(kept, said).text == kept
