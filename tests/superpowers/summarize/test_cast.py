from __future__ import annotations

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import ALIASES, cast_speakers


def prompt_names(names: dict[str, str], *lines: tuple[str, str]) -> dict[str, str]:
    cast = cast_speakers(transcript(*lines, names=names))
    return {s.name: n for s, n in cast.names.items()}


def test_real_names_are_kept() -> None:
    names = prompt_names({"c": "Priya Raman", "a": "Marcus"}, ("c", "Hi"), ("a", "Hello"))
    assert names == {"Priya Raman": "Priya Raman", "Marcus": "Marcus"}


def test_labels_become_distinct_names_not_in_the_conversation() -> None:
    names = prompt_names(
        {"p1": "#Person1#", "p2": "#Person2#"}, ("p1", "Alex told me so."), ("p2", "Right.")
    )
    first, second = names["#Person1#"], names["#Person2#"]
    assert {first, second} <= set(ALIASES)
    assert "Alex" not in (first, second) and first[0] != second[0]


def test_two_speakers_with_one_name_are_told_apart_and_written_back_apart() -> None:
    t = transcript(("a1", "Hi"), ("a2", "Hello"), names={"a1": "Agent", "a2": "Agent"})
    cast = cast_speakers(t)
    first, second = cast.names.values()
    assert first != second
    text = cast.write_back(f"{first} greets the caller, and {second} answers.")
    assert text == "Agent a1 greets the caller, and Agent a2 answers."


def test_roles_for_names_are_written_back_as_the_customer_and_the_agent() -> None:
    t = transcript(
        ("c", "Hi"),
        ("a", "Hello"),
        names={"c": "Customer", "a": "Agent"},
        roles={"c": "user", "a": "agent"},
    )
    cast = cast_speakers(t)
    customer, agent = (cast.names[s] for s in t.speakers)
    text = cast.write_back(f"{customer} calls. {agent} helps {customer}.\n- {agent} ends.")
    assert text == "The customer calls. The agent helps the customer.\n- The agent ends."


def test_a_partial_alias_is_held_back() -> None:
    t = transcript(("p1", "Hi"), ("p2", "Hello"))
    cast = cast_speakers(t)
    alias = next(iter(cast.aliases))
    assert cast.write_back_partial(f"{alias} asks. {alias[:2]}") == "#Person1# asks."


def test_a_bot_and_a_human_agent_are_not_both_the_agent() -> None:
    t = transcript(
        ("c", "Hi"),
        ("b", "Hello, how can I help?"),
        ("a", "Hello, I'm taking over."),
        names={"c": "Customer", "b": "Bot", "a": "Agent"},
        roles={"c": "user", "b": "bot", "a": "agent"},
    )
    cast = cast_speakers(t)
    written = [cast.write_back(cast.names[s]) for s in t.speakers]
    assert len(set(written)) == 3, written


def test_a_name_found_for_one_speaker_shares_no_word_with_another_s() -> None:
    t = transcript(
        ("a", "Thanks, Tony! See you, Tony."),
        ("b", "Bye."),
        names={"a": "Tony Chan", "b": "#Person2#"},
    )
    names = [cast_speakers(t).names[s] for s in t.speakers]
    assert names[0] == "Tony Chan" and "Tony" not in names[1]
