from __future__ import annotations

from bench.mechanical import cut_short, exclaimed_names, one_label_for_two, scan, sentences


def test_one_label_for_two_people_is_found() -> None:
    for summary in (
        "#Person1# and #Person1# celebrate the new job.",
        "Tony is unhappy with Tony because the room is small.",
        "Tony Chan thanks Mr. Chan for the booking.",
        "The call ends. The customer thanks the customer.",
    ):
        assert one_label_for_two(summary), summary


def test_two_people_and_one_person_s_things_are_not() -> None:
    for summary in (
        "#Person1# and #Person2# celebrate. #Person1# pays.",
        "Tony reads Tony's booking, and #Person2# holds the room.",
        "Tony calls the hotel. Tony is happy.",
    ):
        assert one_label_for_two(summary) is None, summary


def test_summaries_cut_below_a_full_sentence_are_found() -> None:
    assert cut_short("Tony calls.") == ["Tony calls."]
    assert cut_short("#Person1# reserves a room for tonight and asks Mr.") != []
    assert cut_short("#Person1# reserves a room for tonight and asks for") != []
    assert cut_short("Mr. Chan reserves a single room for tonight. The hotel holds it.") == []


def test_sentences_do_not_end_at_a_title() -> None:
    assert sentences("- Mr. Chan calls.\n- Ms. Li answers.") == [
        "Mr. Chan calls.",
        "Ms. Li answers.",
    ]


def test_participants_named_by_an_exclamation_are_found() -> None:
    assert exclaimed_names("God tells #Person1# about the new job.") == ["God"]
    assert exclaimed_names("#Person1# says Lord is late.", ["Lord Byron"]) == []
    assert exclaimed_names("#Person1# congratulates #Person2# on the job.") == []


def test_scan_lists_the_offending_summaries_and_skips_failures() -> None:
    rows = [
        {"name": "a", "summary": "#Person1# and #Person1# celebrate the news."},
        {"name": "b", "summary": "", "error": "timeout"},
        {"name": "c", "summary": "#Person1# tells God about the new job at the bank."},
    ]
    found = scan(rows, {})
    assert found["one label for two people"] == [("a", "#Person1#")]
    assert found["participant named by an exclamation"] == [("c", "God")]
    assert found["cut below a full sentence"] == []


def test_two_people_sharing_a_surname_or_a_participle_clause_are_not_one_label() -> None:
    shared = "Carlos Mendoza and Julia Mendoza stay in Lisbon."
    assert one_label_for_two(shared, ["Carlos Mendoza", "Julia Mendoza"]) is None
    clause = "Amy and Rick go out, with Rick holding Amy's hand."
    assert one_label_for_two(clause, ["Amy", "Rick"]) is None
