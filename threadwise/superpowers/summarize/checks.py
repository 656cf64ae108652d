"""The deterministic checks every draft goes through before anyone sees it.

Sentence by sentence: its subjects against the messages behind it (``attribution``), names
and numbers against the conversation (``facts``); a sentence that fails is fixed (speakers
swapped) or dropped: faithful before fluent. A message written to the model ("Ignore all
previous instructions…") supports nothing: a sentence that only such messages support is
dropped, and none is cited as evidence. IDs the conversation gives with what they
identify ("order 48213") are put back where the summary names that thing without its ID.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from threadwise.protocol import SummaryFormat
from threadwise.superpowers.summarize.attribution import Attribution, Attributor
from threadwise.superpowers.summarize.cast import Cast
from threadwise.superpowers.summarize.contact import ContactCheck
from threadwise.superpowers.summarize.details import cut_details
from threadwise.superpowers.summarize.facts import check_facts, unsupported_words
from threadwise.superpowers.summarize.ledger import Ledger, build_ledger
from threadwise.superpowers.summarize.ledger_check import Clause, LedgerCheck, Verdict
from threadwise.superpowers.summarize.one_person import apart
from threadwise.superpowers.summarize.polarity import PolarityCheck
from threadwise.superpowers.summarize.possession import PossessionCheck
from threadwise.superpowers.summarize.sentences import joined, units
from threadwise.superpowers.summarize.speech_check import SpeechCheck
from threadwise.text.speech_acts import content_words
from threadwise.text.transcript import Said, Side, Speaker, Transcript

# What an ID in a conversation can be the ID of, as people write it before the ID.
_ID_NOUNS = (
    "order|ticket|case|invoice|booking|reservation|confirmation|claim|account|reference|"
    "tracking|policy|incident|request|refund|return|shipment|package|parcel|flight|"
    "appointment|subscription|contract|member|membership|customer|card|serial|transaction"
)
_NAMED_ID = re.compile(
    rf"\b({_ID_NOUNS})(?:\s+(?:number|no\.?|num|id|code|#))?\s*[:#]?\s*"
    r"((?=[\w-]*\d)[A-Z0-9][\w-]*[A-Z0-9]|\d{3,})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CheckedSentence:
    text: str  # as the caller reads it: speakers by their own names
    messages: tuple[Said, ...]  # the messages that support it
    prompt_text: str = ""  # as the model wrote it (speakers by their prompt names)

    def inserted(self, at: int, text: str) -> CheckedSentence:
        return CheckedSentence(
            self.text[:at] + text + self.text[at:], self.messages, self.prompt_text
        )


@dataclass
class Checked:
    sentences: list[CheckedSentence] = field(default_factory=list)
    swapped: int = 0
    dropped: list[str] = field(default_factory=list)
    # Clauses restated by the ledger ("will send" for "sends").
    restated: list[str] = field(default_factory=list)
    # The conversation's ledger the sentences were checked against (``ledger``).
    ledger: Ledger = field(default_factory=Ledger)

    def text(self, form: SummaryFormat) -> str:
        return joined([s.text for s in self.sentences], form)


def check_draft(
    draft: str,
    transcript: Transcript,
    cast: Cast,
    form: SummaryFormat,
    *,
    restore_ids: bool = True,
    fragments: bool = False,
) -> Checked:
    """``draft`` (speakers called by their prompt names) checked sentence by sentence; with
    ``restore_ids``, the IDs of the things it names are put back (``_restore_identifiers``);
    with ``fragments``, its sentences may open with any word (see ``check_facts``)."""
    attributor = Attributor(transcript.messages, cast.names)
    acts = build_ledger(transcript.messages)
    written_by: dict[Speaker, str] = {}
    read_by: dict[Speaker, str] = {}
    for message in transcript.messages:
        if not message.addresses_model:
            written_by[message.speaker] = f"{written_by.get(message.speaker, '')}\n{message.text}"
            read_by[message.speaker] = f"{read_by.get(message.speaker, '')}\n{message.english}"
    ledger = LedgerCheck(acts, cast.names, written_by, read_by)
    speech = SpeechCheck(transcript.messages, cast.names)
    polarity = PolarityCheck(transcript.messages, cast.names)
    possession = PossessionCheck(transcript.messages, cast.names)
    contact = ContactCheck(read_by, cast.names)
    readings = "\n".join(m.english for m in transcript.messages if not m.addresses_model)
    said = content_words(readings + transcript.evidence)
    told = f"{transcript.evidence}\n{readings}"
    checked = Checked(ledger=acts)
    previous = ""  # the last sentence kept, as the model wrote it
    for unit in units(draft, form):
        pronoun, name = _pronoun_subject(unit, previous, cast)
        attributed = attributor.check(name + unit[len(pronoun) :] if pronoun else unit)
        if not attributed.kept:
            checked.dropped.append(f"actor: {unit}")
            continue
        clause_checks = (speech, polarity, ledger, possession, contact)
        if not _clause_checks(clause_checks, unit, attributed, attributor, cast, checked):
            continue
        details = cut_details(attributed.text, said)
        if details.text is None:
            checked.dropped.append(f"not in the conversation: {', '.join(details.cut)}: {unit}")
            continue
        if details.cut:
            checked.restated.extend(f"cut {cut}" for cut in details.cut)
            attributed.text = details.text
        support = tuple(m for m in attributed.messages if not m.addresses_model)
        if attributed.messages and not support:
            checked.dropped.append(f"only a message written to the model says: {unit}")
            continue
        checked.swapped += attributed.fixed
        previous = attributed.text
        if pronoun and attributed.text.startswith(f"{name} "):
            # The checks kept the subject: the model's pronoun goes back.
            attributed.text = pronoun + attributed.text[len(name) :]
        written = cast.write_back(attributed.text)
        facts = check_facts(written, transcript.evidence, openers=fragments)
        unsupported = facts.unsupported + unsupported_words(written, told)
        if unsupported:
            checked.dropped.append(f"unsupported {', '.join(unsupported)}: {unit}")
            continue
        text = apart(unit, attributed.text, cast)  # never one name for two people
        if text is None:
            checked.dropped.append(f"one name for two people: {unit}")
            continue
        written = written if text == attributed.text else cast.write_back(text)
        checked.sentences.append(CheckedSentence(written, support, text))
    if restore_ids:
        _restore_identifiers(checked, transcript.evidence, transcript.messages)
    return checked


def _pronoun_subject(sentence: str, previous: str, cast: Cast) -> tuple[str, str]:
    """ "She" opening ``sentence`` and the speaker it stands for: the only speaker the sentence
    before names ("Nadia confirms the fee. She advises…"), so that the checks read the clause;
    ("", "") when there is no such pronoun or more than one speaker it could be."""
    found = re.match(r"(?:He|She)\b", sentence)
    if found is None:
        return "", ""
    named = [
        name
        for name in cast.names.values()
        if re.search(rf"(?<![\w#]){re.escape(name)}(?![\w#])", previous)
    ]
    return (found.group(0), named[0]) if len(named) == 1 else ("", "")


class ClauseCheck(Protocol):
    """A check of a sentence's clauses whose subject is a speaker."""

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict: ...


def _clause_checks(
    checks: Sequence[ClauseCheck],
    unit: str,
    attributed: Attribution,
    attributor: Attributor,
    cast: Cast,
    checked: Checked,
) -> bool:
    """``attributed`` (the draft's sentence ``unit`` after the actor check) through each
    clause check in turn, restated where one changes it; False (and ``unit`` noted as
    dropped) when one drops it."""
    for check in checks:
        verdict = check.check(attributed.text, _clauses(attributor, attributed.text, cast))
        if verdict.text is None:
            checked.dropped.append(f"{'; '.join(verdict.changes)}: {unit}")
            return False
        if verdict.changes:
            checked.restated.extend(verdict.changes)
            attributed.text = verdict.text
            attributed.messages = attributor.evidence(verdict.text)
    return True


def _clauses(attributor: Attributor, sentence: str, cast: Cast) -> list[Clause]:
    """The sentence's clauses whose subject is a speaker, for the ledger check."""
    speakers = {name: speaker for speaker, name in cast.names.items()}
    found = []
    for clause in attributor.clauses(sentence):
        named = re.match(r"[^\s,;]+(?:\s+[A-Z][^\s,;]*)*", sentence[clause.start :])
        written = named.group(0) if named else clause.subject
        # The subject as written: the full name, or its first word ("Sam" for "Sam Lee").
        length = (
            len(clause.subject)
            if written.startswith(clause.subject)
            else len(clause.subject.split()[0])
        )
        end = clause.start + length
        found.append(Clause(speakers[clause.subject], clause.start, end, clause.end))
    return found


# The messages that open a conversation: where its issue, and the issue's IDs, are given.
_OPENING = 2


def _restore_identifiers(checked: Checked, evidence: str, messages: Sequence[Said]) -> None:
    """Put "48213" back after "the order" when the conversation said "order 48213"; when the
    summary names no such ID at all, the conversation's first one, "(order 48213)", ends the
    first clause of the sentence that cites the message with it, else of the first sentence
    when the customer or the conversation's opening gave it (the issue's ID, not a fraud
    report's the agent filed later)."""
    named = list(_NAMED_ID.finditer(evidence))
    missing_all = not any(m.group(2) in s.text for m in named for s in checked.sentences)
    for match in named:
        noun, ident = match.group(1).lower(), match.group(2)
        if not checked.sentences or any(ident in s.text for s in checked.sentences):
            continue
        for number, sentence in enumerate(checked.sentences):
            found = re.search(rf"\b{noun}\b(?!\s+(?:number|#)?\s*\w*\d)", sentence.text, re.I)
            if found:
                checked.sentences[number] = sentence.inserted(found.end(), f" {ident}")
                break
        else:
            if not missing_all or match is not named[0]:
                continue
            citing = [any(ident in m.text for m in s.messages[:1]) for s in checked.sentences]
            given = next((m for m in messages if ident in m.text), None)
            issue = given is not None and (
                given in messages[:_OPENING] or given.speaker.side is Side.CUSTOMER
            )
            if True not in citing and not issue:
                continue
            number = citing.index(True) if True in citing else 0
            sentence = checked.sentences[number]
            clause = re.search(r",\s|[.!?]?$", sentence.text)
            at = clause.start() if clause else len(sentence.text)
            named_id = match.group(0).strip()
            named_id = named_id[0].lower() + named_id[1:]  # "Order 48213" opened its sentence
            checked.sentences[number] = sentence.inserted(at, f" ({named_id})")
