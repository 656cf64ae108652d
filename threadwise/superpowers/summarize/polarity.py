"""A summary clause that denies must restate a denial: "Lee does not want a pet" needs a
"not", "never", "no" or a refusal in the messages it restates.

The other checks find who a clause's words belong to; a "not" changes nothing there, so
"Lee does not recommend the store" passes them when Lee recommended it. A negated clause
whose words the messages hold only in sentences that deny nothing is dropped (a later clause
of the sentence is cut, as ``ledger_check`` does). Questions decide nothing ("Don't you
like it?"), and a clause whose words no message holds is left to the other checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from threadwise.superpowers.summarize.ledger_check import Clause, Verdict, without_clause
from threadwise.text.speech_acts import content_words, sentences
from threadwise.text.transcript import Said, Speaker

# A clause that denies: its verb negated, or "never", "no longer", "nothing".
_DENIES = re.compile(
    r"^\s+(?:\w+ly\s+)?(?:(?:does|did|do|is|was|are|were|has|had|have|will|would|can|could|"
    r"should|must)(?:\s+not|n't)|cannot|can't|won't|never|no longer|refuses to|fails to)\b"
)
# What a sentence denies with: a negation, a refusal, a lack.
_DENIAL = re.compile(
    r"\b(?:not|no|never|nothing|nobody|none|neither|nor|without|cannot|hardly|barely|"
    r"refus\w*|declin\w*|den(?:y|ies|ied)|unable|fail\w*|lack\w*|miss\w*|forg[eo]t\w*|"
    r"instead|rather|too|only|nope|nah|unfortunately|afraid|sorry|mind)\b|n't\b"
)
# Where the denied predicate ends: the next predicate, a reason, another clause.
_PREDICATE_END = re.compile(
    r",?\s+(?:and|but|then|so|because|since|as|while|which|who|after|before)\b|[,;:(]"
)
# Words of a negated clause that say nothing of what it restates.
_EMPTY_WORDS = """
    not never longer refuse fail want like need know think say tell ask get have make go come
    see give take seem feel yet anything"""
_EMPTY = frozenset(_EMPTY_WORDS.split())


def _denies(text: str, words: frozenset[str]) -> bool:
    """Does ``text`` deny something within a few words before one of ``words``?"""
    tokens = re.findall(r"[\w']+", text)
    cues = [
        i for i, token in enumerate(tokens) if _DENIAL.fullmatch(token) or token.endswith("n't")
    ]
    if not cues:
        return False
    found = [i for i, token in enumerate(tokens) if content_words(token) & words]
    return not found or any(0 <= f - c <= _REACH for c in cues for f in found)


# How far before a restated word a denial still bears on it ("I can't find my wallet").
_REACH = 6


@dataclass(frozen=True)
class _Line:
    text: str
    words: frozenset[str]


class PolarityCheck:
    """Checks the negated clauses of summary sentences against the messages' sentences."""

    def __init__(self, messages: Sequence[Said], names: dict[Speaker, str]) -> None:
        self._lines = [
            _Line(text, content_words(text))
            for message in messages
            if not message.addresses_model
            for text in sentences(message.english)
        ]
        self._name_words = frozenset(w for n in names.values() for w in content_words(n))

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict:
        verdict = Verdict(sentence)
        for clause in reversed(clauses):
            text = verdict.text
            if text is None:
                break
            if self._supported(text[clause.name_end : clause.end]):
                continue
            verdict.changes.append("denied, but no message denies it")
            verdict.text = without_clause(text, clause, clauses)
        return verdict

    def _supported(self, body: str) -> bool:
        """Is the clause no denial, or one that a message's denial may back?"""
        denial = _DENIES.match(body)
        if denial is None:
            return True
        denied = _PREDICATE_END.split(body[denial.end() :], maxsplit=1)[0]
        words = content_words(denied) - self._name_words - _EMPTY
        if not words:
            return True
        scored = [(len(words & line.words), line) for line in self._lines]
        best = max((score for score, _ in scored), default=0)
        if best == 0:
            return True  # no message restated: the other checks decide
        return any(_denies(line.text, words) for score, line in scored if score == best)
