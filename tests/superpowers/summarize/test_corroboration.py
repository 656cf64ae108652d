from __future__ import annotations

from tests.text.test_speaker_names import transcript
from threadwise.superpowers.summarize.cast import cast_speakers
from threadwise.superpowers.summarize.checks import check_draft
from threadwise.superpowers.summarize.corroboration import corroborate, named_back, rotated

CHAT = transcript(
    ("p1", "Do you want to come to the beach with us on Sunday?"),
    ("p2", "That'd be fantastic! What should I bring?"),
    ("p1", "Just a towel. We'll pick you up at noon."),
)


def test_the_second_draft_calls_each_speaker_by_the_other_s_alias_and_is_read_back() -> None:
    cast = cast_speakers(CHAT)
    names = rotated(cast)
    assert sorted(names.values()) == sorted(cast.names.values())
    assert all(names[s] != cast.names[s] for s in cast.names)
    first, second = list(cast.names)
    written = f"{names[first]} invites {names[second]}."
    assert named_back(written, names, cast) == f"{cast.names[first]} invites {cast.names[second]}."


def test_a_sentence_the_second_draft_gives_to_another_speaker_goes() -> None:
    cast = cast_speakers(CHAT)
    one, two = cast.names.values()
    checked = check_draft(
        f"{one} invites {two} to the beach on Sunday. {two} will pick {one} up at noon.",
        CHAT.renamed(cast.names),
        cast,
        "paragraph",
        restore_ids=False,
    )
    second = f"{one} invites {two} to the beach on Sunday, and {one} will pick {two} up at noon."
    dropped = corroborate(checked, second, cast.names.values())
    assert [s.prompt_text for s in checked.sentences] == [
        f"{one} invites {two} to the beach on Sunday."
    ]
    assert dropped == [f"{two} will pick {one} up at noon."]


def test_when_nothing_is_corroborated_the_first_sentence_stays() -> None:
    cast = cast_speakers(CHAT)
    one, two = cast.names.values()
    checked = check_draft(
        f"{one} invites {two} to the beach.", CHAT.renamed(cast.names), cast, "paragraph"
    )
    corroborate(checked, f"{two} talks about the weather.", cast.names.values())
    assert len(checked.sentences) == 1
