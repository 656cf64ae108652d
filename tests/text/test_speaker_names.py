from __future__ import annotations

from typing import Any

from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.text.speaker_names import is_generic_name, names_in_conversation
from threadwise.text.transcript import Transcript, build_transcript


def transcript(
    *lines: tuple[str, str],
    names: dict[str, str] | None = None,
    roles: dict[str, str] | None = None,
) -> Transcript:
    names = names or {"p1": "#Person1#", "p2": "#Person2#"}
    roles = roles or {}
    body: dict[str, Any] = {
        "request": {
            "connections": {"threadId": "t"},
            "context": {"organizationId": "o"},
            "scope": {
                "conversations": [
                    {
                        "participants": [
                            {"participantId": p, "displayName": n, "role": roles.get(p)}
                            for p, n in names.items()
                        ],
                        "messages": [{"participantId": p, "content": t} for p, t in lines],
                    }
                ]
            },
        }
    }
    conversations = parse_message_body(body, PayloadLimits()).request.scope.conversations
    return build_transcript(conversations)


def named(t: Transcript) -> dict[str, str]:
    return {s.name: n for s, n in names_in_conversation(t.messages).items()}


def test_greetings_and_closing_words_name_the_other_speaker() -> None:
    t = transcript(("p1", "Hi, Sam. I want to buy a pet."), ("p2", "Good luck, Maria."))
    assert named(t) == {"#Person1#": "Maria", "#Person2#": "Sam"}


def test_an_introduction_names_the_speaker() -> None:
    t = transcript(("p1", "Hello, my name is Elsa Tobin."), ("p2", "How can I help?"))
    assert named(t) == {"#Person1#": "Elsa Tobin"}


def test_words_that_only_look_like_names_are_not_taken() -> None:
    t = transcript(
        ("p1", "Done, the refund will reach your card."),
        ("p2", "Purple. But today I want a bright colour."),
        ("p1", "Books, music, how much we both love it."),
        ("p2", "We met Mo Mu, Zhong Lichun, Meng Guang and Ruan Nv."),
    )
    assert named(t) == {}


def test_a_name_given_to_both_speakers_is_no_name() -> None:
    t = transcript(("p1", "Hi, Alex."), ("p2", "Hi, Alex."))
    assert named(t) == {}


def test_groups_are_not_guessed() -> None:
    t = transcript(
        ("p1", "Hi, Sam."),
        ("p2", "Hi."),
        ("p3", "Hello."),
        names={"p1": "A1", "p2": "A2", "p3": "A3"},
    )
    assert named(t) == {}


def test_generic_names() -> None:
    for name in ("#Person1#", "Customer", "Agent 2", "user", "p-7f3a", "A", "cust_8812", "Bot"):
        assert is_generic_name(name), name
    for name in ("Ana", "Priya Raman", "Mr. Brown", "Jean-Luc"):
        assert not is_generic_name(name), name


def test_oaths_and_interjections_are_not_names() -> None:
    for word in ("God", "Lord", "Jesus", "Heavens", "Goodness", "Geez", "Hell", "Heck", "Wow"):
        t = transcript(
            ("p1", f"I got the job! Oh, {word}! I can't believe it."),
            ("p2", f"Oh, {word}! Congratulations!"),
            ("p1", f"Thanks. My {word}, I'm nervous, {word}."),
        )
        assert named(t) == {}, word


def test_a_word_exclaimed_is_a_name_only_if_used_as_one_elsewhere() -> None:
    exclaimed = transcript(
        ("p1", "The car broke down again. Oh, Rats!"),
        ("p2", "What now?"),
        ("p1", "It needs a new engine. Oh, Rats!"),
    )
    assert named(exclaimed) == {}
    greeted = transcript(
        ("p1", "Hi, Amy. The car broke down again."),
        ("p2", "Hello, Bill. What now?"),
        ("p1", "Oh, Amy! I need a new car."),
    )
    assert named(greeted) == {"#Person2#": "Amy", "#Person1#": "Bill"}
