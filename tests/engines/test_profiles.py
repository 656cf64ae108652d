from __future__ import annotations

from threadwise.engines.profiles import Profiles


def test_a_variant_picks_its_profile_without_regard_to_case() -> None:
    profiles = Profiles("embedded", {"A": "embedded", "b": "remote"})
    assert profiles.choose("B").value == "remote" and profiles.choose("B").profile == "b"
    assert profiles.choose(" a ").value == "embedded" and profiles.choose("a").note == ""
    for missing in (None, "", "  "):
        choice = profiles.choose(missing)
        assert choice.value == "embedded" and choice.profile is None and choice.note == ""


def test_an_unknown_variant_gets_the_default_and_says_so() -> None:
    choice = Profiles("default", {"B": "remote"}).choose("x" * 100)
    assert choice.value == "default"
    assert choice.note == f" (variant {'x' * 64} unknown: default)"


def test_without_profiles_variants_are_not_looked_at() -> None:
    choice = Profiles("default").choose("Z")
    assert choice.value == "default" and choice.note == ""


def test_map_builds_a_shared_value_once() -> None:
    shared = ["model"]
    profiles = Profiles(shared, {"A": shared, "B": ["other"]})
    built = profiles.map(lambda value: {"built from": value})
    assert built.choose("A").value is built.default
    assert built.choose("B").value is not built.default
    assert len(built.values()) == 2
    assert [name for name, _ in built.items()] == [None, "A", "B"]
