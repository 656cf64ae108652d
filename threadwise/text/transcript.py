"""Compact transcripts of conversations for a language model prompt.

Every line names its speaker and, where known, their side (customer or agent): small models
otherwise mix up who did what. Timestamps cost ~44% more prompt tokens, so they appear only
where they carry meaning: when a conversation pauses for an hour or more. Every text on the
lines is quoted as data (``text.injection``); a message that speaks to the model rather than
to the people in the conversation is left out of the lines and of the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from threadwise.protocol import Conversation
from threadwise.text.injection import addresses_model, as_line

PAUSE_WORTH_A_TIMESTAMP = timedelta(hours=1)
# What the model reads instead of a message written to it: that a message was there, so
# that the turns still alternate, but nothing it could take for an order or a fact.
LEFT_OUT = "(message not shown)"


class Side(StrEnum):
    CUSTOMER = "customer"
    AGENT = "agent"
    BOT = "bot"
    OTHER = "other"


_SIDES: dict[str, Side] = {
    "user": Side.CUSTOMER,
    "enduser": Side.CUSTOMER,
    "end_user": Side.CUSTOMER,
    "customer": Side.CUSTOMER,
    "client": Side.CUSTOMER,
    "operator": Side.AGENT,
    "agent": Side.AGENT,
    "humanagent": Side.AGENT,
    "bot": Side.BOT,
    "assistant": Side.BOT,
    "virtualagent": Side.BOT,
}


def side_of(role: str | None) -> Side:
    if role is None:
        return Side.OTHER
    return _SIDES.get(re.sub(r"[\s-]", "", role).lower(), Side.OTHER)


@dataclass(frozen=True)
class Speaker:
    name: str
    side: Side
    role: str | None
    # The participant's ID: two speakers of the same name and role are still two.
    key: str = ""

    @property
    def label(self) -> str:
        """How the speaker is named on each transcript line."""
        return self.label_as(self.name)

    def label_as(self, name: str) -> str:
        """The label, the speaker called ``name``."""
        if self.side is Side.OTHER:
            return f"{name} ({self.role})" if self.role else name
        return f"{name} ({self.side.value})"


@dataclass(frozen=True)
class Said:
    """One message as the transcript holds it: who said it, and where it came from."""

    speaker: Speaker
    text: str  # whitespace collapsed
    conversation_id: str | None
    index: int  # its position in its conversation's messages, as the request gave them
    # The message in English when it was written in another language: the summary is
    # checked in English, against what each speaker said (see ``Transcript.read``); the
    # model reads the message as written.
    reading: str | None = None
    # It speaks to the model ("Ignore all previous instructions…"): not shown to it, and no
    # evidence for anything a summary says.
    addresses_model: bool = False

    @property
    def shown(self) -> str:
        """The message as the model reads it on its line."""
        return LEFT_OUT if self.addresses_model else as_line(self.text)

    @property
    def english(self) -> str:
        """What the checks compare an English summary with."""
        return self.reading or self.text


@dataclass(frozen=True)
class Transcript:
    speakers: tuple[Speaker, ...]
    lines: tuple[str, ...]
    # Everything the summary may draw facts from: message texts, names, roles.
    evidence: str
    messages: tuple[Said, ...] = ()
    # Each speaker's name on the lines, when not their own (see ``renamed``).
    names: Mapping[Speaker, str] = field(default_factory=dict)
    # How the lines are laid out: None for a message, else a marker line (timestamp, part).
    layout: tuple[str | None, ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def has_roles(self) -> bool:
        return any(s.side in (Side.CUSTOMER, Side.AGENT, Side.BOT) for s in self.speakers)

    def name_of(self, speaker: Speaker) -> str:
        return self.names.get(speaker, speaker.name)

    def who_is_who(self) -> str:
        """One line saying who is on which side, e.g. ``Anna Keller is the customer; Tom ...``."""
        parts = []
        for speaker in self.speakers:
            name = self.name_of(speaker)
            if speaker.side is Side.OTHER:
                role = f" ({speaker.role})" if speaker.role else ""
                parts.append(as_line(f"{name}{role}"))
            else:
                article = "an automated" if speaker.side is Side.BOT else "the"
                noun = "agent" if speaker.side is Side.BOT else speaker.side.value
                parts.append(f"{as_line(name)} is {article} {noun}")
        return "; ".join(parts)

    def read(self, readings: Sequence[str | None]) -> Transcript:
        """The same transcript with each message's English reading for the checks (None: it
        is English, or has none), one per message in order."""
        if len(readings) != len(self.messages):
            raise ValueError(f"{len(readings)} readings for {len(self.messages)} messages")
        messages = (replace(m, reading=r) for m, r in zip(self.messages, readings, strict=True))
        # The lines (the model's prompt) keep what was written: machine readings there made
        # the model repeat their mistranslations (bench/FAITHFULNESS.md, round 5).
        return replace(self, messages=tuple(messages))

    def renamed(self, names: Mapping[Speaker, str]) -> Transcript:
        """The same transcript with speakers called by ``names`` on its lines (the others
        keep their own); ``evidence`` stays what the request said."""
        said = iter(self.messages)
        lines = []
        for marker in self.layout:
            if marker is None:
                message = next(said)
                name = names.get(message.speaker, message.speaker.name)
                lines.append(f"{as_line(message.speaker.label_as(name))}: {message.shown}")
            else:
                lines.append(marker)
        return replace(self, lines=tuple(lines), names=dict(names))


def build_transcript(conversations: Sequence[Conversation]) -> Transcript:
    speakers: dict[str, Speaker] = {}
    messages: list[Said] = []
    layout: list[str | None] = []
    evidence: list[str] = []
    several = len(conversations) > 1
    for number, conversation in enumerate(conversations, start=1):
        known = {
            p.participantId: _speaker(p.displayName, p.role, p.participantId)
            for p in conversation.participants
            if p.participantId
        }
        if several:
            layout.append(f"-- Conversation {number} --")
        stamps = [m.timestamp for m in conversation.messages]
        show_times = _pauses(stamps)
        for index, message in enumerate(conversation.messages):
            pid = message.participantId
            speaker = known.get(pid) if pid else None
            if speaker is None:
                # An author missing from the participants is still used, the ID standing in.
                speaker = Speaker(name=pid or "Unknown", side=Side.OTHER, role=None, key=pid or "")
            speaker = speakers.setdefault(speaker.key or speaker.label, speaker)
            stamp = message.timestamp
            if stamp is not None and index in show_times:
                layout.append(f"[{_format_time(stamp)}]")
            content = " ".join(message.content.split())
            to_model = addresses_model(message.content)
            messages.append(
                Said(speaker, content, conversation.conversationId, index, addresses_model=to_model)
            )
            layout.append(None)
            if not to_model:
                evidence.append(message.content)
        evidence.extend(f"{s.name} {s.role or ''}" for s in known.values())
    plain = Transcript(
        speakers=tuple(speakers.values()),
        lines=(),
        evidence="\n".join(evidence),
        messages=tuple(messages),
        layout=tuple(layout),
    )
    return plain.renamed({})


def _speaker(display_name: str | None, role: str | None, pid: str) -> Speaker:
    side = side_of(role)
    name = display_name or (side.value.capitalize() if side is not Side.OTHER else pid)
    return Speaker(name=" ".join(name.split()), side=side, role=role, key=pid)


def _pauses(stamps: Sequence[datetime | None]) -> set[int]:
    """Indices of the messages that get a timestamp: after a long pause, and the first one."""
    shown: set[int] = set()
    previous: datetime | None = None
    for index, stamp in enumerate(stamps):
        if stamp is None:
            continue
        if previous is not None and _gap(previous, stamp) >= PAUSE_WORTH_A_TIMESTAMP:
            shown.add(index)
        previous = stamp
    if shown:
        first = next(i for i, s in enumerate(stamps) if s is not None)
        shown.add(first)
    return shown


def _gap(earlier: datetime, later: datetime) -> timedelta:
    if (earlier.tzinfo is None) != (later.tzinfo is None):
        earlier, later = earlier.replace(tzinfo=None), later.replace(tzinfo=None)
    return later - earlier


def _format_time(stamp: datetime) -> str:
    suffix = " UTC" if stamp.utcoffset() == timedelta(0) else ""
    return stamp.strftime("%a %Y-%m-%d %H:%M") + suffix
