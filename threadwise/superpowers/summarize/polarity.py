"""A summary clause must keep the polarity of what it restates: "Lee does not want a pet"
needs a "not", "never", "no" or a refusal in the messages it restates, and "Ana rebooks him
with a hotel voucher" may not assert what every message that mentions a voucher denies
("I'm not able to provide a hotel voucher").

The other checks find who a clause's words belong to; a "not" changes nothing there, so
"Lee does not recommend the store" passes them when Lee recommended it. A negated clause
whose words the messages hold only in sentences that deny nothing is dropped (a later clause
of the sentence is cut, as ``ledger_check`` does). Questions decide nothing ("Don't you
like it?"), and a clause whose words no message holds is left to the other checks.

An asserting clause goes when it names a thing the messages only ever deny anyone has or
gets: "no refund", "without a voucher", or the object of a denied verb of giving ("can't
provide a hotel voucher"; "can't override the rule" denies the act, not the rule). And a
clause stating as fact what the messages that restate it best only believe ("charges him
twice" from "I believe you charged me twice") goes, unless it reports the belief.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from threadwise.superpowers.summarize.attribution import SPEECH_VERBS
from threadwise.superpowers.summarize.ledger_check import Clause, Verdict, without_clause
from threadwise.text.speech_acts import content_words, lemma, sentences
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
# What a message denies a thing with, for a clause that asserts it: a plain negation or
# refusal, not the hedges ("only", "too", "sorry") ``_DENIAL`` also counts.
_PLAIN_DENIAL = re.compile(
    r"(?:not|never|none|neither|nor|cannot|unable|refus\w*|declin\w*|"
    r"den(?:y|ies|ied)|\w+n't)"
)
# What denies a thing outright: "no refund", "without a voucher".
_NO_THING = re.compile(r"no|without|nothing")
# Verbs of giving and having: denied, they deny the thing ("can't provide a voucher").
_GIVING_WORDS = """
    provide give offer issue refund send cover grant include get receive allow waive pay
    reimburse compensate book reserve have accept approve owe add apply extend"""
_GIVING = frozenset(_GIVING_WORDS.split())
# What ends the clause a denial bears on.
_CLAUSE_BREAK = re.compile(r"[,;:.!?]|and|but|so|because|though|although|if|or|that|which")
# What ends the thing a denial bears on ("anything until the decision").
_PHRASE_BREAK = re.compile(r"until|while|for|to|on|in|at|by|from|after|before|since|when")
# How many words after "no" or a denied "provide" the thing denied is said in.
_THING_REACH = 3
# Words "no" goes with in set phrases that deny nothing ("no problem", "not at all").
_SET_PHRASES = frozenset({"problem", "worry", "doubt", "matter", "way", "thank", "thanks"})
# An asserting clause that itself denies, refuses or puts aside: it may restate a denial.
_CLAUSE_DENIES = re.compile(
    r"\b(?:not|no|never|without|cannot|unable|instead|rather|refus\w*|declin\w*|"
    r"reject\w*|turn\w* down|den(?:y|ies|ied))\b|n't\b"
)
# A sentence that only believes what it says: "I believe you charged me twice".
_HEDGE = re.compile(
    r"\b(?:i (?:believe|guess|suppose|suspect|assume)|i think (?!(?:you|we|i) (?:should|"
    r"could|can|need|must|'d))|it seems|probably)\b"
)
# A clause that reports a belief as one: it may restate a hedged sentence.
_BELIEF_WORDS = """
    believe suspect assume guess suppose fear feel seem worry doubt think hope wish want prefer
    conclude realize find turn would will can could may might should must"""
_BELIEF_VERBS = frozenset(_BELIEF_WORDS.split())
# The share of a clause's words a message sentence holds to be what it restates.
_RESTATED = 0.6
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


def _denied_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The things ``text`` (one sentence) denies anyone has or gets ("no refund", "not able
    to provide a hotel voucher"), and the words it says otherwise ("can't override the
    rule" denies an act, not the rule): a question denies nothing."""
    tokens = re.findall(r"[\w']+|[,;:.!?]", text.lower())
    denied: set[str] = set()
    said: set[str] = set()
    negated = reach = 0  # a negation's words still to come, and a denied thing's
    for token in tokens:
        if _CLAUSE_BREAK.fullmatch(token):
            negated = reach = 0
        elif _PHRASE_BREAK.fullmatch(token):
            reach = 0
        elif _NO_THING.fullmatch(token):
            reach = _THING_REACH
        elif _PLAIN_DENIAL.fullmatch(token):
            negated = _REACH
        elif negated and lemma(token) in _GIVING:
            negated, reach = 0, _THING_REACH
        else:
            for word in content_words(token):
                (denied if reach > 0 and word not in _SET_PHRASES else said).add(word)
            negated, reach = max(0, negated - 1), max(0, reach - 1)
    if text.rstrip().endswith("?"):
        return frozenset(), frozenset(denied | said)
    return frozenset(denied), frozenset(said)


# What opens a noun phrase: "a hotel voucher", "their refund".
_DETERMINER_WORDS = "a an the his her their its my your our some any this that these those another"
_DETERMINERS = frozenset(_DETERMINER_WORDS.split())


def _things(text: str) -> frozenset[str]:
    """The content words of ``text``'s noun phrases: at most two words after a determiner
    ("hotel" and "voucher" of "with a hotel voucher"), not its verbs ("for running")."""
    tokens = re.findall(r"[\w'$.-]+", text.lower())
    found: set[str] = set()
    for index, token in enumerate(tokens):
        if token in _DETERMINERS:
            for word in tokens[index + 1 : index + 4]:
                if word in _DETERMINERS:
                    break
                found |= content_words(word)
    return frozenset(found)


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
        denied: set[str] = set()
        said: set[str] = set()
        for line in self._lines:
            no, yes = _denied_words(line.text)
            denied |= no
            said |= yes
        # The words the messages only ever deny ("voucher" in "not able to provide a hotel
        # voucher", said nowhere else).
        self._only_denied = frozenset(denied - said - _EMPTY)

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict:
        verdict = Verdict(sentence)
        for clause in reversed(clauses):
            text = verdict.text
            if text is None:
                break
            body = text[clause.name_end : clause.end]
            if not self._supported(body):
                verdict.changes.append("denied, but no message denies it")
            elif self._asserts_denied(body):
                verdict.changes.append("asserted, but every message denies it")
            elif self._only_believed(body):
                verdict.changes.append("stated as fact, but only believed")
            else:
                continue
            verdict.text = without_clause(text, clause, clauses)
        return verdict

    def _asserts_denied(self, body: str) -> bool:
        """Does the clause, denying nothing itself and reporting no one's words, assert a
        thing (a noun or an adjective: "a hotel voucher") the messages only deny?"""
        verb = re.match(r"\s*(?:\w+ly\s+)?(\w+)", body)
        if verb is None or lemma(verb.group(1)) in SPEECH_VERBS:
            return False
        if _CLAUSE_DENIES.search(body.lower()):
            return False
        return bool(_things(body) & self._only_denied - self._name_words)

    def _only_believed(self, body: str) -> bool:
        """Does the clause state as fact, in a verb of its own, what the messages that
        restate it best only believe ("charges him twice" from "I believe you have charged
        me twice")?"""
        verb = re.match(r"\s*(?:\w+ly\s+)?(\w+)", body)
        if verb is None or lemma(verb.group(1)) in SPEECH_VERBS | _BELIEF_VERBS:
            return False
        words = content_words(_PREDICATE_END.split(body, maxsplit=1)[0])
        words -= self._name_words | _EMPTY
        if len(words) < 2:
            return False
        scored = [(len(words & line.words), line) for line in self._lines]
        best = max((score for score, _ in scored), default=0)
        if best < max(2, _RESTATED * len(words)):
            return False
        return all(_HEDGE.search(line.text) for score, line in scored if score == best)

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
