"""Who is who in the prompt: a distinct name for every speaker, and back again.

A small model keeps speakers apart by their names. Labels that say nothing or differ by one
token (``#Person1#``/``#Person2#``, "Customer 1", IDs, two agents both called "Agent") make it
give actions to the wrong person. So each such speaker is called in the prompt by the name the
conversation itself uses for them ("Hi, Sam"), else by a name from ``ALIASES`` that the
conversation does not contain; the summary is then written with the speaker's own label again,
so an alias never reaches the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from threadwise.text.speaker_names import is_generic_name, names_in_conversation
from threadwise.text.transcript import Side, Speaker, Transcript

# Short, common, distinct from each other in their first letters and tokens.
ALIASES = (
    "Alex",
    "Robin",
    "Jordan",
    "Casey",
    "Morgan",
    "Taylor",
    "Jamie",
    "Riley",
    "Quinn",
    "Avery",
    "Drew",
    "Blake",
    "Emery",
    "Hayden",
    "Kendall",
    "Logan",
)


@dataclass(frozen=True)
class Cast:
    """Each speaker's name in the prompt, and how a summary writes the aliases back."""

    names: dict[Speaker, str]
    # alias -> the speaker's own label, for the speakers called by an alias
    aliases: dict[str, str]

    def write_back(self, text: str) -> str:
        """``text`` with each alias replaced by the label of the speaker it stands for."""
        for alias, label in self.aliases.items():
            text = re.sub(rf"\b{re.escape(alias)}\b", label, text)
        # "the customer" opening a sentence or a line.
        return re.sub(
            r"(^|[.!?]\s+|\n\s*(?:[-*•]\s+)?)(the )",
            lambda m: m.group(1) + "The ",
            text,
        )

    def write_back_partial(self, text: str) -> str:
        """``write_back`` for text still being written: a last word that may be the start
        of an alias is held back until it is complete."""
        last = re.search(r"\w+$", text)
        if last and any(a.startswith(last.group(0)) for a in self.aliases):
            text = text[: last.start()]
        return self.write_back(text).rstrip()


def cast_speakers(transcript: Transcript) -> Cast:
    """A distinct prompt name for every speaker of ``transcript``."""
    speakers = transcript.speakers
    taken = {_fold(s.name) for s in speakers}
    spoken = _words(transcript.evidence)
    counts: dict[str, int] = {}
    for speaker in speakers:
        counts[_fold(speaker.name)] = counts.get(_fold(speaker.name), 0) + 1
    found = names_in_conversation(transcript.messages)
    names: dict[Speaker, str] = {}
    aliases: dict[str, str] = {}
    free = (a for a in ALIASES if a.lower() not in spoken | _words(" ".join(taken)))
    for speaker in speakers:
        own = speaker.name
        if not is_generic_name(own) and counts[_fold(own)] == 1:
            names[speaker] = own
            continue
        named = found.get(speaker)
        # "Tony" for one speaker beside "Tony Chan" for the other would read as one person.
        if named and not _words(named) & _words(" ".join(taken)):
            names[speaker] = named
            taken.add(_fold(named))
            continue
        alias = next(free, None)
        if alias is None:  # more speakers than aliases: keep the label
            names[speaker] = own
            continue
        names[speaker] = alias
        aliases[alias] = _label(speaker, counts[_fold(own)] > 1, speakers)
    return Cast(names, aliases)


def _label(speaker: Speaker, shared: bool, speakers: tuple[Speaker, ...]) -> str:
    """How the summary calls a speaker whose own name says little."""
    if shared:
        return f"{speaker.name} {speaker.key}".strip()
    # A bot and a human agent would both be "the agent": one label for two people.
    same_side = [s for s in speakers if _plain_side(s) == _plain_side(speaker)]
    generic_role = speaker.name.strip().lower() in (
        speaker.side.value,
        (speaker.role or "").lower(),
        "user",
        "client",
        "operator",
    )
    if speaker.side is not Side.OTHER and generic_role and len(same_side) == 1:
        return f"the {'agent' if speaker.side is Side.BOT else speaker.side.value}"
    return speaker.name


def _plain_side(speaker: Speaker) -> Side:
    return Side.AGENT if speaker.side is Side.BOT else speaker.side


def _fold(name: str) -> str:
    return " ".join(name.split()).casefold()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", text.casefold()))
