from __future__ import annotations

from threadwise.text.exclamations import is_exclamation, is_interjection


def test_idioms_of_surprise_are_exclamations_as_whole_sentences() -> None:
    for sentence in (
        "Get out of here!",
        "Oh, shut up!",
        "You're kidding me, Tom!",
        "Are you kidding?",
        "No way!",
        "Give me a break.",
        "Oh my God!",
    ):
        assert is_exclamation(sentence), sentence


def test_the_same_words_in_a_longer_sentence_are_what_they_say() -> None:
    for sentence in (
        "Get out of here before I call the police!",
        "Give me a break from the night shifts, please.",
        "Shut up the shop at nine",
        "There is no way to reach the airport",
        "Get out",
    ):
        assert not is_exclamation(sentence), sentence


def test_interjections_are_known_whatever_their_case() -> None:
    assert all(is_interjection(w) for w in ("God", "lord", "Heavens", "Gosh", "Wow"))
    assert not any(is_interjection(w) for w in ("Tony", "Maria", "Pete"))
