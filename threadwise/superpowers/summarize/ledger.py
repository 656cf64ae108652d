"""The ledger of a conversation: who asked, offered, promised or did what, and how it ended.

Built from the messages, never from the model: each message's speaker is known, and what its
sentences do is read by rules (``text/speech_acts``) in the message's English reading. Each
request, offer, suggestion, wish or promise then gets a final state from the messages after
it: the other person's reply ("Sure" / "No, thanks") accepts or declines it, a later report
that it was done ("I've sent it") makes it done, else it stays pending.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from threadwise.text.speech_acts import Act, Doer, Mood, Reply, acts, reply
from threadwise.text.transcript import Said, Speaker

# Moods that propose something still to happen.
PROPOSALS = frozenset({Mood.ASKED, Mood.WANTED, Mood.OFFERED, Mood.SUGGESTED, Mood.PROMISED})


class State(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    DONE = "done"


@dataclass
class Entry:
    """One act in the conversation, its doer resolved to a speaker where known."""

    act: Act
    said_by: Speaker
    doer: Speaker | None  # None: both, or nobody known
    position: int  # the message's place in the conversation
    state: State = State.PENDING
    both: bool = False  # "let's…": the two speakers together
    # An answer to the other's question ("How do you want to send it?" "I'll send it by
    # airmail"): a choice made, not a promise to hold anyone to.
    choice: bool = False
    # "Your flight was cancelled": done by nobody named, but not by the one it was told to.
    not_by: Speaker | None = None

    @property
    def mood(self) -> Mood:
        return self.act.mood

    @property
    def verb(self) -> str:
        return self.act.verb


@dataclass
class Ledger:
    entries: list[Entry] = field(default_factory=list)
    speakers: tuple[Speaker, ...] = ()

    def about(self, verbs: frozenset[str], words: frozenset[str]) -> list[Entry]:
        """The entries whose verb is one of ``verbs`` and which share a content word with
        ``words`` (or have none to share: "I'll call you")."""
        found = []
        for entry in self.entries:
            if entry.verb not in verbs:
                continue
            if words and entry.act.words and not words & entry.act.words:
                continue
            found.append(entry)
        return found

    def states(self, speaker: Speaker) -> set[str]:
        """The words of how ``speaker`` says they are, or is told they are ("bored")."""
        return {e.verb for e in self.entries if e.mood is Mood.STATED and e.doer is speaker}

    def other(self, speaker: Speaker) -> Speaker | None:
        others = [s for s in self.speakers if s is not speaker]
        return others[0] if len(others) == 1 else None


def build_ledger(messages: Sequence[Said]) -> Ledger:
    """The ledger of ``messages`` (those written to the model are no evidence: skipped)."""
    speakers = tuple(dict.fromkeys(m.speaker for m in messages))
    ledger = Ledger(speakers=speakers)
    previous: Said | None = None
    for position, message in enumerate(messages):
        if message.addresses_model:
            continue
        answer = reply(message.english)
        if answer is not None:
            _answer(ledger, message.speaker, answer)
        asked = (
            previous is not None
            and previous.speaker is not message.speaker
            and previous.english.rstrip().endswith("?")
        )
        previous = message
        for act in acts(message.english):
            entry = _entry(ledger, act, message.speaker, position)
            entry.choice = asked and act.mood is Mood.PROMISED
            if act.mood in (Mood.DONE, Mood.REFUSED):
                _settle(ledger, entry)
            ledger.entries.append(entry)
    return ledger


def _entry(ledger: Ledger, act: Act, speaker: Speaker, position: int) -> Entry:
    doer: Speaker | None
    if act.doer is Doer.SPEAKER:
        doer = speaker
    elif act.doer is Doer.OTHER:
        doer = ledger.other(speaker)
    else:
        doer = None
    state = State.DONE if act.mood is Mood.DONE else State.PENDING
    if act.mood is Mood.REFUSED:
        state = State.DECLINED
    entry = Entry(act, speaker, doer, position, state, both=act.doer is Doer.BOTH)
    if act.doer is Doer.NOBODY and act.addressee:
        entry.not_by = ledger.other(speaker)
    elif act.doer is Doer.NOBODY and act.own:
        entry.not_by = speaker
    return entry


def _answer(ledger: Ledger, speaker: Speaker, answer: Reply) -> None:
    """``speaker``'s reply settles the other person's open proposals of their last message;
    handing something over ("Here you are") does what the speaker wanted or was asked."""
    if answer is Reply.HANDS_OVER:
        for entry in ledger.entries:
            if (
                entry.mood in PROPOSALS
                and entry.state is not State.DECLINED
                and (entry.doer is speaker)
            ):
                entry.state = State.DONE
        return
    open_ = [
        e
        for e in ledger.entries
        if e.said_by is not speaker and e.mood in PROPOSALS and e.state is State.PENDING
    ]
    if not open_:
        return
    last = max(e.position for e in open_)
    for entry in open_:
        if entry.position == last:
            entry.state = State.ACCEPTED if answer is Reply.ACCEPTS else State.DECLINED


def _settle(ledger: Ledger, entry: Entry) -> None:
    """A report that something was done (or will not be) settles what proposed it."""
    for earlier in ledger.entries:
        if earlier.mood not in PROPOSALS or earlier.verb != entry.verb:
            continue
        if earlier.state is State.DONE:
            continue
        same_doer = entry.doer is None or earlier.doer is None or earlier.doer is entry.doer
        if not same_doer:
            continue
        if entry.mood is Mood.DONE:
            earlier.state = State.DONE
        elif earlier.state is State.PENDING:
            earlier.state = State.DECLINED
