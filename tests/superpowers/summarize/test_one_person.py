from __future__ import annotations

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import cast_speakers
from threadwise.superpowers.summarize.one_person import apart, named_twice

CAST = cast_speakers(
    transcript(
        ("p1", "My name is Tony Chan. I'd like a single room."),
        ("p2", "Thank you, Mr. Chan."),
    )
)
TONY, ALEX = CAST.names.values()  # "Tony Chan", an alias written back as "#Person2#"


def test_one_speaker_named_twice_as_two_people_is_found() -> None:
    for sentence in (
        f"{TONY} and Tony celebrate.",
        f"{ALEX}, {ALEX} and the manager meet.",
        f"Tony is unhappy with {TONY}.",
        f"{ALEX} thanks {ALEX} for the room.",
        f"Mr. Chan talks to {TONY}.",
        "#Person2# and #Person2# agree.",  # as written back for the caller
    ):
        assert named_twice(sentence, CAST), sentence


def test_two_people_or_one_person_s_things_are_not() -> None:
    for sentence in (
        f"{TONY} thanks {ALEX}.",
        f"{TONY} asks for a room, and {ALEX} holds it until nine. {TONY} thanks her.",
        f"{TONY} reads {TONY}'s booking.",
        f"{TONY} calls. {TONY} is happy.",
    ):
        assert named_twice(sentence, CAST) is None, sentence


def test_a_check_s_change_is_undone_and_a_draft_s_sentence_dropped() -> None:
    draft = f"{ALEX} asks Mr. Chan for a room."
    assert apart(draft, f"{TONY} asks Mr. Chan for a room.", CAST) == draft
    assert apart(f"{TONY} thanks Tony.", f"{TONY} thanks Tony.", CAST) is None
    assert apart(draft, draft, CAST) == draft
