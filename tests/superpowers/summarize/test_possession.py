"""Whose thing a summary says it is (``summarize/possession.py``), through ``check_draft``."""

from __future__ import annotations

from tests.superpowers.summarize.test_ledger_check import checked

JOBS = [
    ("c", "I didn't know you had a job."),
    ("a", "Yeah. I work part-time at a supermarket."),
    ("c", "I do yard work for people: cutting grass, raking leaves."),
]


def test_a_thing_only_the_other_spoke_of_as_theirs_is_theirs() -> None:
    draft = "Ana and Bo talk about Ana's job at a supermarket and Bo's yard work."
    assert checked(JOBS, draft) == (
        "Ana and Bo talk about Bo's job at a supermarket and Ana's yard work."
    )


def test_a_pronoun_possessive_is_checked_as_the_subject() -> None:
    messages = [
        ("c", "Could I borrow your notes from the biology lecture?"),
        ("a", "Sure, here they are."),
    ]
    draft = "Ana borrows her biology notes."
    assert checked(messages, draft) == "Ana wants to borrow Bo's biology notes."


def test_a_thing_both_spoke_of_is_left_alone() -> None:
    messages = [("c", "My car broke down again."), ("a", "My car is fine, but the bus is late.")]
    draft = "Bo talks about Bo's car."
    assert checked(messages, draft) == draft


def test_what_a_speaker_said_of_someone_else_is_not_theirs() -> None:
    messages = [
        ("c", "Do you know Lizzy's younger sister?"),
        ("a", "Sure. I know her elder sister Sue and younger sister Mary."),
    ]
    draft = "Ana asks Bo about Lizzy, including her younger sister Mary."
    assert checked(messages, draft) == draft


def test_a_thing_only_told_of_a_third_person_is_no_speakers() -> None:
    messages = [
        ("c", "So how did Simon handle it?"),
        ("a", "His excuse was familiar. He said his car died again."),
    ]
    draft = "Bo talks about Bo's car trouble."
    assert checked(messages, draft) == "Bo talks about the car trouble."


def test_what_a_speaker_reports_of_themselves_is_theirs_by_name() -> None:
    draft = "Bo mentions that he works part-time at a supermarket and carries things around."
    messages = [*JOBS, ("a", "I also stock shelves, so I carry things around all day.")]
    assert checked(messages, draft) == (
        "Bo mentions that Bo works part-time at a supermarket and carries things around."
    )
