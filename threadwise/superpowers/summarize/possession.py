"""Whose thing a summary says it is: "Tom's job as a supermarket worker" needs Tom to have
said it was his.

People say what is theirs in the first person ("I work part-time at a supermarket", "my
notes") and what is the other's in the second ("your notes"). A summary's possessive (a
speaker's name with "'s", or the clause subject's "his" or "her") is given to the other
speaker when the thing's words occur only where the other spoke of their own: "Tom's job as
a supermarket worker" becomes "Sally's job…" when only Sally said "I work … at a
supermarket", and "Ana borrows her notes" becomes "Bo's notes" after "Could I borrow your
notes?". What a speaker says of a third person ("I know her sister") is not theirs, and a
thing only ever told of a third person ("his car died", of Simon) is no speaker's: "Carole's
car trouble" becomes "the car trouble". What a speaker reports of a "he" or "she" that only
they said of themselves is theirs by name ("Sally mentions that Sally works part-time"). A
thing both spoke of as their own decides nothing,
and one the messages do not place with anyone is left to the other checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from threadwise.superpowers.summarize.ledger_check import Clause, Verdict
from threadwise.text.speech_acts import content_words, sentences
from threadwise.text.transcript import Said, Speaker

# A sentence about the speaker's own things, and one about the listener's.
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b")
# "my notes", "your job": the thing, its first words only ("your job is … and you have lots
# of chances" is about jobs like it, not the listener's chances).
_MY = re.compile(r"\bmy\s+(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,2})")
_YOUR = re.compile(r"\byour\s+(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,2})")
# What a speaker says is theirs in the first person: a job, a home, a thing they have, what
# they are ("I work part-time at a supermarket", "I do yard work", "I have a dog").
_OWNING = re.compile(
    r"\bi(?:'m| am| was)?\s+(?:(?:also|still|just|only|really|\w+ly)\s+)?"
    r"(?:work|works|worked|working|study|studied|live|lived|teach|taught|own|'ve got|have got|"
    r"(?:have|had)(?=\s+(?:a|an|two|three|some)\b)|do(?=(?:\s+\w+){0,2}\s+work\b)|a|an)\b"
    r"(?P<thing>[^,;:.!?]*)"
)
# A sentence about the listener too ("I've rebooked you on the next flight"): what is in it
# is not the speaker's for the "I" in it.
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours)\b")
_THIRD_PERSON = re.compile(r"\b(?:his|her|their|its)\s+\w")
# The thing possessed: up to a verb of the clause, a new clause or punctuation; an "as a …"
# says what it is ("job as a yard worker").
_THING_END = re.compile(
    r"\s+(?:and|but|or|which|who|that|because|while|when|to|is|are|was|were|has|have|had|"
    r"with|for|from|about|after|before|so)\b|[,;:.!?()]"
)
# Words that name a kind of thing, not which one ("job", "thing"): no evidence of whose.
_GENERIC_WORDS = """
    job work thing things stuff one ones place time day idea plan problem issue situation
    life experience part kind lot way"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
# Verbs that report what someone says of themselves.
_REPORTS = r"(?:mentions|says|explains|adds|notes|admits|reveals|states|shares)"
_PRONOUNS = ("his", "her")  # not "their": often both speakers


class _Nobody:
    """A thing no speaker spoke of as theirs, only as a third person's."""


_NOBODY = _Nobody()


class PossessionCheck:
    """Checks the possessives of summary sentences against who spoke of the thing as theirs;
    ``names`` are the prompt names."""

    def __init__(self, messages: Sequence[Said], names: dict[Speaker, str]) -> None:
        self.names = names
        self.speakers = tuple(dict.fromkeys(m.speaker for m in messages))
        self._name_words = frozenset(w for n in names.values() for w in content_words(n))
        self._owned: dict[Speaker, set[str]] = {s: set() for s in self.speakers}
        # Words of things someone named told of a third person's ("his car died").
        self._third: set[str] = set()
        for message in messages:
            if message.addresses_model:
                continue
            speaker = message.speaker
            other = self._other(speaker)
            for text in sentences(message.english):
                lowered = text.lower().replace("\u2019", "'")
                for mine in _MY.finditer(lowered):
                    self._owned[speaker] |= content_words(mine.group("thing"))
                if other is not None:
                    for yours in _YOUR.finditer(lowered):
                        self._owned[other] |= content_words(yours.group("thing"))
                if not (_SECOND_PERSON.search(lowered) or _THIRD_PERSON.search(lowered)):
                    # "I work part-time at a supermarket", "I have a dog": the speaker's own.
                    # ("I see account 0093…", "I've rebooked you…" say nothing of whose.)
                    for own in _OWNING.finditer(lowered):
                        self._owned[speaker] |= content_words(own.group("thing"))
                for theirs in _THIRD_PERSON.finditer(lowered):
                    self._third |= content_words(_THING_END.split(lowered[theirs.start() :])[0])

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict:
        verdict = Verdict(sentence)
        if len(self.speakers) != 2:
            return verdict
        text = sentence
        # Last first, so that earlier positions still hold.
        for start, end, owner in reversed(self._possessives(sentence, clauses)):
            thing = _THING_END.split(text[end:], maxsplit=1)[0]
            complement = re.match(r"\s+as\s+(?:a|an|the)?\s*[^,;:.!?]+", text[end + len(thing) :])
            words = content_words(thing + (complement.group(0) if complement else ""))
            words = words - self._name_words - _GENERIC
            right = self._owner(words, owner)
            if right is _NOBODY and text[start:end].endswith("'s"):
                # (A pronoun may be the third person's own: "doesn't know his name".)
                # "Carole's car trouble" when only "his car died" was said, of Simon.
                verdict.changes.append(f"possessive: {' '.join(sorted(words))} is no speaker's")
                text = f"{text[:start]}the{text[end:]}"
                continue
            if not isinstance(right, Speaker):
                continue
            verdict.changes.append(f"possessive: {' '.join(sorted(words))} is the other's")
            text = f"{text[:start]}{self.names[right]}'s{text[end:]}"
        verdict.text = self._said_of_oneself(text, verdict)
        return verdict

    def _said_of_oneself(self, text: str, verdict: Verdict) -> str:
        """ "Sally mentions that he works part-time" when only Sally said "I work part-time":
        the pronouns of what she reports are her name ("…that Sally works part-time")."""
        for speaker, name in self.names.items():
            other = self._other(speaker)
            pattern = (
                rf"(?<![\w#]){re.escape(name)}\s+(?:\w+ly\s+)?{_REPORTS}\s+that\s+(?:he|she)\b"
            )
            found = re.search(pattern, text)
            if found is None or other is None:
                continue
            reported = re.split(r"[.;:!?]", text[found.start() :], maxsplit=1)[0]
            said = re.sub(r"^.*?\bthat\s+", "", reported)
            words = content_words(said) - self._name_words - _GENERIC
            if not words & self._owned[speaker] or words & self._owned[other]:
                continue
            verdict.changes.append(f"reported of oneself: {name}")
            head = reported[: reported.index(" that ")]
            told = re.sub(r"\bthat\s+(?:he|she)\b", f"that {name}", reported[len(head) :])
            told = re.sub(r"\b(?:his|her)\b", f"{name}'s", told)
            text = text.replace(reported, head + told, 1)
        return text

    def _possessives(self, sentence: str, clauses: list[Clause]) -> list[tuple[int, int, Speaker]]:
        """Where each possessive of a speaker is (its start and end: the thing follows) and
        whose the sentence says it is."""
        found = []
        for speaker, name in self.names.items():
            pattern = rf"(?<![\w#]){re.escape(name)}'s\b"
            found += [(m.start(), m.end(), speaker) for m in re.finditer(pattern, sentence)]
        for clause in clauses:
            end = clause.end
            pattern = rf"\b(?:{'|'.join(_PRONOUNS)})\b"
            for match in re.finditer(pattern, sentence[clause.name_end : end]):
                at = clause.name_end + match.start()
                found.append((at, clause.name_end + match.end(), clause.subject))
        return sorted(found)

    def _owner(self, words: frozenset[str], owner: Speaker) -> Speaker | _Nobody | None:
        """The other speaker, when ``words`` are theirs and not ``owner``'s; ``_NOBODY`` when
        they are only a third person's; else None."""
        other = self._other(owner)
        if other is None or not words:
            return None
        if words & self._owned[owner]:
            return None
        if words & self._owned[other]:
            return other
        if words & self._third and len(words & self._third) * 2 >= len(words):
            return _NOBODY
        return None

    def _other(self, speaker: Speaker) -> Speaker | None:
        others = [s for s in self.speakers if s is not speaker]
        return others[0] if len(self.speakers) == 2 and len(others) == 1 else None
