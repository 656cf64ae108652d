"""Each summary clause checked against the ledger: what it says happened must have happened.

The actor check (``attribution``) asks who a clause's words belong to; this one asks what
state the ledger gives the act the clause restates, and who did it:

- written as done ("Sam speaks to the professor", "has booked", "paid") when the messages
  only have it offered, promised, wished, asked for or suggested: the clause says so instead
  ("will speak", "offers to send", "wants to book", "is asked to fill out"); when it was
  declined or refused, the clause goes;
- "agrees" or "accepts" when the speaker declined what the other proposed, or "refuses",
  "declines" when they accepted: the verb is turned;
- a state ("is bored", "is pregnant") or a past act ("has moved") that only the other
  speaker said of themselves: given to them (two speakers), else the clause goes;
- an act done to the subject's own thing ("my flight got cancelled") written as theirs
  ("cancels his flight"): told in the passive ("'s flight is cancelled");
- "offers a credit" when the subject's messages report it given ("I've added a credit", "the
  credit is applied"): told with the verb that gave it ("adds a credit");
- a consequential act ("refunds", "hires", "allows") that no message names in any form, nor
  by a synonym: the predicate goes.

Only what the ledger clearly shows is changed: a clause whose act the ledger does not hold,
or holds both ways, is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import lemminflect

from threadwise.superpowers.summarize.ledger import PROPOSALS, Entry, Ledger, State
from threadwise.text.speech_acts import Mood, content_words, is_past, is_verb, lemma, sentences
from threadwise.text.transcript import Speaker

# Verbs a summary uses for the same act as the conversation's ("purchases" for "buy").
_SYNONYM_GROUPS = """
    buy purchase | speak talk | file submit lodge open | book reserve | call phone ring |
    send mail email ship upload attach |
    fix repair | refund reimburse | fill complete | meet see | rent hire | help assist |
    replace exchange | cancel | return | pay | order | sign | visit |
    deliver | move relocate | change switch | upgrade | apply | invite | lend | borrow |
    arrange organize organise | contact | schedule | reset | issue | process | transfer |
    leave | join | attend | bring | pick collect | give | prepare | cook | clean | print |
    install | open | close | write | read | study | teach | drive | fly | travel | stay |
    sell | try | recommend suggest | offer | agree | accept | refuse decline reject
"""
_SYNONYMS: dict[str, frozenset[str]] = {}
for _group in _SYNONYM_GROUPS.split("|"):
    _words = frozenset(_group.split())
    for _word in _words:
        _SYNONYMS[_word] = _words
# Verbs too light to say which act a clause restates ("takes", "gets", "goes").
_LIGHT_WORDS = """
    be have do get go make take come see give put let keep say tell ask think know want
    need like seem look feel find use work show start stop help assist confirm verify"""
_LIGHT = frozenset(_LIGHT_WORDS.split())
# Verbs of speech: said in the conversation itself, not a result of what it promised.
_SPEECH_WORDS = """
    say tell ask explain mention suggest offer apologize thank promise agree reply answer
    advise recommend warn remind invite request"""
_SPEECH = frozenset(_SPEECH_WORDS.split())
# A clause that is not a report of something done: its first words after the subject.
_NOT_DONE = re.compile(
    r"(?:will|would|can|could|may|might|should|must|shall|cannot|can't|won't|does not|doesn't|"
    r"did not|didn't|is not|isn't|never|plans|intends|hopes|wants|wishes|needs|has to|have to|"
    r"is going|are going|offers|promises|agrees|decides|asks|suggests|proposes|recommends|"
    r"invites|requests|tells|advises|reminds|urges|wonders|considers|tries|attempts|expects|"
    r"is asked|is advised|is told|is unable|is able|is willing|is ready|is about|is planning|"
    r"is thinking|is looking|is trying|would like|is scheduled|prefers|chooses|refuses|"
    r"declines|rejects|accepts|likes|loves|hates)\b"
)
# "will send", "offers to send", "does not send": an act not (yet) done, by the clause.
_NOT_YET = re.compile(
    r"(?:(?P<mood>will|is going to|promises to|offers to|plans to|intends to|agrees to|"
    r"wants to|hopes to|is about to|would like to)|(?P<negation>does not|doesn't|did not|"
    r"didn't|never|will not|won't))\s+(?P<verb>[a-z]+)\b"
)
_UNCHANGED = "\0unchanged"
_OFFERING = frozenset({"offers to", "promises to"})
# Verbs of giving information: an ID or a number the subject wrote is given already.
_GIVING = frozenset({"provide", "give", "share", "send", "supply", "confirm", "quote", "tell"})
_GIVEN_VALUE = re.compile(r"(?<![\w-])[A-Z0-9][\w-]*\d[\w-]*|\d[\w-]*")
# When a clause's act is to happen: after the conversation.
_LATER = re.compile(
    r"(?<!for )\b(?:tomorrow|tonight|later|soon|next (?:week|month|year|time|day|morning|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this (?:afternoon|evening|weekend)|"
    r"in (?:a|an|one|two|three|\d+) (?:day|days|week|weeks|hour|hours|minutes)|within)\b"
)
_ACCEPTING = frozenset({"agree", "accept", "consent"})
_REFUSING = frozenset({"refuse", "decline", "reject"})
_TURNED = {
    "agrees to": "declines to",
    "accepts": "declines",
    "consents to": "declines to",
    "agrees": "disagrees",
    "refuses to": "agrees to",
    "declines to": "agrees to",
    "declines": "accepts",
    "rejects": "accepts",
    "refuses": "accepts",
}
_STATE_VERBS = r"(?:is|was|feels|felt|seems|seemed|gets|got|becomes|became|looks|sounds)"
_DEGREE = r"(?:(?:so|very|really|a bit|a little|quite|too|rather|pretty|getting|extremely)\s+)?"


@dataclass
class Verdict:
    """A sentence as the ledger leaves it: its text, or None when it must go."""

    text: str | None
    changes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Clause:
    subject: Speaker
    start: int  # where the subject's name starts
    name_end: int  # where it ends
    end: int


class LedgerCheck:
    """Checks clauses against one conversation's ledger; ``names`` are the prompt names."""

    def __init__(
        self,
        ledger: Ledger,
        names: dict[Speaker, str],
        said: Mapping[Speaker, str] | None = None,
        read: Mapping[Speaker, str] | None = None,
    ) -> None:
        self.ledger = ledger
        self.names = names
        # What each speaker wrote, for the IDs and numbers they gave; and its English reading
        # (the same text for English), for the words of what they did.
        self.said = dict(said or {})
        self.read = dict(read or self.said)
        self._words: frozenset[str] | None = None

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict:
        verdict = Verdict(sentence)
        # Last clause first, so that the earlier clauses' positions still hold.
        for clause in reversed(clauses):
            text = verdict.text
            if text is None:
                break
            head, body, tail = (
                text[: clause.name_end],
                text[clause.name_end : clause.end],
                text[clause.end :],
            )
            unsaid = self._unsaid(body, verdict)
            if unsaid == 0:
                verdict.text = without_clause(text, clause, clauses)
                continue
            if unsaid is not None:
                # The sentence ends before the unsaid predicate; its earlier ones go on.
                text = cut_before(text, clause.name_end + unsaid)
                head, body, tail = text[: clause.name_end], text[clause.name_end :], ""
            body = self._joined_later(body, clause.subject, verdict)
            changed = self._clause(body, clause.subject, verdict)
            if changed is None:
                verdict.text = without_clause(text, clause, clauses)
                continue
            if isinstance(changed, Speaker):
                verdict.text = text[: clause.start] + self.names[changed] + body + tail
                continue
            verdict.text = head + changed + tail
        return verdict

    def _clause(self, body: str, subject: Speaker, verdict: Verdict) -> str | Speaker | None:
        """The clause's predicate as it should read; a speaker when the subject must be
        them; None when it must go."""
        match = re.match(r"\s+(?:(?:also|then|later|finally|eventually|\w+ly)\s+)?", body)
        lead = match.end() if match else 0
        predicate = body[lead:]
        turned = self._response(predicate, subject, verdict)
        if turned is not None:
            return body[:lead] + turned
        state = self._state(predicate, subject, verdict)
        if state is not None:
            return state
        undone = self._undone(predicate, subject, verdict)
        if undone is not _UNCHANGED:
            return None if undone is None else body[:lead] + undone
        given = self._offered_given(predicate, subject, verdict)
        if given is None:
            given = self._advised_done(predicate, subject, verdict)
        if given is not None:
            return body[:lead] + given
        if _NOT_DONE.match(predicate):
            return body
        return self._done(body, lead, subject, verdict)

    def _undone(self, predicate: str, subject: Speaker, verdict: Verdict) -> str | None:
        """A clause saying an act is still to happen ("will send", "offers to send") or did
        not happen ("does not send") when the subject reported it done: restated as done,
        or dropped when denied."""
        found = _NOT_YET.match(predicate)
        if found is None:
            return _UNCHANGED
        word = found.group("verb")
        base = lemma(word)
        if base in _LIGHT or not is_verb(word):
            return _UNCHANGED
        rest = predicate[found.end() :]
        words = content_words(_main(rest)) - self._name_words()
        entries = self.ledger.about(_SYNONYMS.get(base, frozenset({base})), words)
        own = [e for e in entries if e.doer is subject]
        done = [e for e in own if e.mood is Mood.DONE]
        mood = (found.group("mood") or "").strip()
        given = _GIVEN_VALUE.findall(rest)
        if (
            base in _GIVING
            and not found.group("negation")
            and given
            and all(value in self.said.get(subject, "") for value in given)
        ):
            # "will provide the order ID A-20931" when the subject's messages gave it.
            verdict.changes.append(f"{base}: given in the messages, not only {mood}")
            return _third_person_form(base) + rest
        if mood in _OFFERING and not done and words:
            # "offers to add a credit": an offer or a promise the subject made, else none.
            made = self.ledger.about(_SYNONYMS.get(base, frozenset({base})) | _LIGHT, words)
            if not any(e.said_by is subject and e.mood in PROPOSALS for e in made):
                verdict.changes.append(f"{base}: no {mood.split()[0]} in the messages")
                return None
        if not done or any(e.position > done[-1].position and e.mood in PROPOSALS for e in own):
            return _UNCHANGED
        if any(e.mood is Mood.REFUSED for e in own):
            return _UNCHANGED
        if found.group("negation"):
            verdict.changes.append(f"{base}: done, not denied")
            return None
        verdict.changes.append(f"{base}: done, not only {found.group('mood').strip()}")
        return _third_person_form(base) + rest

    def _unsaid(self, body: str, verdict: Verdict) -> int | None:
        """Where in the clause a predicate reports a consequential act ("refunds", "hires")
        that no message names in any form, nor by a synonym: nobody said it happened. 0
        when it is the clause's first predicate, None when there is none."""
        for found in _PREDICATE.finditer(body):
            word = found.group("verb")
            if not (_third_person(word) or is_past(word)):
                continue
            base = lemma(word)
            if base not in _CONSEQUENTIAL:
                continue
            known = self._vocabulary()
            forms = _SYNONYMS.get(base, frozenset({base})) | {base}
            if any(w.startswith(form) for form in forms for w in known):
                continue
            verdict.changes.append(f"{base}: no message says so")
            return found.start()
        return None

    def _vocabulary(self) -> frozenset[str]:
        if self._words is None:
            self._words = content_words("\n".join(self.read.values()))
        return self._words

    def _offered_given(self, predicate: str, subject: Speaker, verdict: Verdict) -> str | None:
        """ "offers a credit" (the predicate's first verb, or one joined to it) when the
        subject's messages report the credit given ("I've added a credit", "the credit is
        applied"): restated with the verb that gave it ("adds a credit"); None when the
        clause has no such offer."""
        for found in _OFFERS.finditer(predicate):
            rest = predicate[found.end() :]
            end = _OBJECT_END.search(rest)
            thing = content_words(rest[: end.start() if end else len(rest)])
            thing -= self._name_words()
            verb = self._reported_given(subject, thing)
            if verb is not None:
                verdict.changes.append(f"offer: {verb} in the messages, not only offered")
                head = predicate[: found.start("verb")]
                return f"{head}{_third_person_form(verb)} {rest}"
        return None

    def _reported_given(self, subject: Speaker, thing: frozenset[str]) -> str | None:
        """The verb by which ``subject``'s messages, latest first, report ``thing`` given
        ("I've added a credit", "the alert is now active": ``_verb_beside``); None if none."""
        for said in reversed(sentences(self.read.get(subject, ""))):
            verb = None if said.endswith("?") else _verb_beside(said, thing)
            if verb is not None:
                return verb
        return None

    def _advised_done(self, predicate: str, subject: Speaker, verdict: Verdict) -> str | None:
        """ "advises Ana to set up a text alert" when the subject's messages report the alert
        set up ("a text alert at $100 is now active"): "sets up a text alert", what follows
        it still advised ("and advises Ana to turn on…"); None when the clause is no such
        advice."""
        found = _ADVISED.match(predicate)
        if found is None:
            return None
        whom = found.group("whom")
        others = {n for speaker, n in self.names.items() if speaker is not subject}
        others |= {n.split()[0] for n in others}  # "Gregory" for Gregory Adeyemi
        if whom not in others and whom not in ("him", "her", "them"):
            return None
        rest = predicate[found.end() :]
        end = _OBJECT_END.search(rest)
        thing = content_words(rest[: end.start() if end else len(rest)]) - self._name_words()
        if not thing:
            return None
        if self._reported_given(subject, thing) is None:
            return None
        verdict.changes.append("advice: done by the adviser in the messages")
        act = _third_person_form(found.group("act")) + (found.group("particle") or "")
        advised = f"{found.group('verb')} {whom} to "
        more = re.search(r"\s+and\s+(?=(?P<next>[a-z]+)\b)", rest)
        if (
            more is not None
            and is_verb(more.group("next"))
            and lemma(more.group("next")) == more.group("next")
        ):
            rest = rest[: more.end()] + advised + rest[more.end() :]
        return f"{act} {rest}"

    def _done(
        self, body: str, lead: int, subject: Speaker, verdict: Verdict
    ) -> str | Speaker | None:
        """A clause reporting an act as done ("sends", "sent", "has sent")."""
        found = re.match(
            r"(?:(?P<aux>has|have|had)\s+(?:(?:just|already|recently|now|finally|\w+ly)\s+)?)?"
            r"(?P<verb>[a-z]+)\b",
            body[lead:],
        )
        if found is None:
            return body
        word = found.group("verb")
        if found.group("aux") is None and not (_third_person(word) or is_past(word)):
            return body
        if found.group("aux") is not None and not is_past(word):
            return body
        base = lemma(word)
        if base in _LIGHT or not is_verb(word):
            return body
        verbs = _SYNONYMS.get(base, frozenset({base}))
        rest = body[lead + found.end() :]
        own_part = re.split(r"\s+(?:to|that|who|which|will|would|if|when)\s+", _main(rest))[0]
        if found.group("aux") is None and not is_past(word) and _LATER.search(own_part):
            # "calls in a day or two", "plants trees this afternoon": still to happen.
            verdict.changes.append(f"{base}: later, not done")
            return body[:lead] + f"will {base}" + rest
        words = content_words(_main(rest)) - self._name_words()
        entries = self.ledger.about(verbs, words)
        own = [e for e in entries if _may_do(e, subject)]
        if not any(e.doer is subject for e in entries) and any(
            e.not_by is subject and e.state is State.DONE for e in entries
        ):
            # "My flight got cancelled", "your flight was cancelled" told to the subject, and
            # no message has the subject cancel anything: not the subject's act.
            verdict.changes.append(f"{base}: done to the subject, not by them")
            return _passive(body[lead + found.start("verb") :], base, _texts(entries))
        if any(e.state is State.DONE for e in own) or (
            own and any(e.state is State.DONE for e in entries)
        ):
            # Done by the subject, or asked by them and done for them ("books a room").
            return body
        others = [e for e in entries if e.doer is not None and e.doer is not subject]
        if not entries and self._promised_later(words, subject):
            # "provides training on scheduling" after "Come in tomorrow and I'll show you how
            # to do the scheduling": promised for later in other words, not done.
            verdict.changes.append(f"{base}: promised for later, not done")
            return body[:lead] + f"will {base}" + self._before_consequence(rest, subject, verdict)
        if not own:
            done_by_other = {e.doer for e in others if e.state is State.DONE}
            if (
                words & _all_words(others)
                and len(done_by_other) == 1
                and not _said_of(entries, subject)
            ):
                right = done_by_other.pop()
                if right is not None and len(self.ledger.speakers) == 2:
                    verdict.changes.append(f"{base}: done by the other speaker")
                    return right
            return body
        latest = max(own, key=lambda e: e.position)
        if latest.choice:
            return body
        if latest.state is State.DECLINED or latest.mood is Mood.REFUSED:
            verdict.changes.append(f"{base}: declined, not done")
            return None
        phrase = _as_not_done(latest, subject)
        verdict.changes.append(f"{base}: {latest.mood.value}/{latest.state.value}, not done")
        return body[:lead] + f"{phrase} {base}" + self._before_consequence(rest, subject, verdict)

    def _joined_later(self, body: str, subject: Speaker, verdict: Verdict) -> str:
        """``body`` with a predicate joined after its first ("agrees to the raise and provides
        training on scheduling") that the subject promised for later in other words ("Come in
        tomorrow and I'll show you how to do the scheduling") told as still to happen."""
        for found, base, end in _joined_acts(body):
            if base in _LIGHT:
                continue
            words = content_words(body[found.end() : end]) - self._name_words()
            if self.ledger.about(_SYNONYMS.get(base, frozenset({base})), words):
                continue
            if not self._promised_later(words, subject):
                continue
            verdict.changes.append(f"{base}: promised for later, not done")
            return body[: found.start("verb")] + f"will {base}" + body[found.end() :]
        return body

    def _promised_later(self, words: frozenset[str], subject: Speaker) -> bool:
        """Did ``subject`` promise, for a later time ("tomorrow", "next week"), something
        with one of ``words``, and never report it done?"""
        return any(
            e.doer is subject
            and e.mood is Mood.PROMISED
            and e.state is State.PENDING
            and words & e.act.words
            and _LATER.search(e.act.text.lower())
            for e in self.ledger.entries
        )

    def _before_consequence(self, rest: str, subject: Speaker, verdict: Verdict) -> str:
        """``rest`` of a predicate still to happen, cut before a predicate joined to it that
        reports a result as done ("will check the charges and confirms the mistake"): what
        follows an act not yet done has not happened either, unless the subject's messages
        report it done."""
        for found, base, _ in _joined_acts(rest):
            if any(
                e.verb == base and e.state is State.DONE and _may_do(e, subject)
                for e in self.ledger.entries
            ):
                continue
            verdict.changes.append(f"{base}: after what is still to happen")
            end = re.search(r"[.!?]+$", rest)
            return rest[: found.start()] + (end.group(0) if end else "")
        return rest

    def _response(self, predicate: str, subject: Speaker, verdict: Verdict) -> str | None:
        """ "agrees to"/"refuses to" against the subject's reply to the other's proposal."""
        found = re.match(
            r"(?P<verb>agrees to|agrees|accepts|consents to|refuses to|refuses|declines to|"
            r"declines|rejects)\b",
            predicate,
        )
        if found is None:
            return None
        rest = predicate[found.end() :]
        words = content_words(_main(rest)) - self._name_words()
        if not words:
            return None
        proposals = [
            e
            for e in self.ledger.entries
            if e.said_by is not subject
            and e.mood in (Mood.ASKED, Mood.OFFERED, Mood.SUGGESTED, Mood.WANTED, Mood.PROMISED)
            and ({e.verb} | e.act.words) & words
        ]
        states = {e.state for e in proposals}
        claimed = lemma(found.group("verb").split()[0])
        accepting = claimed in _ACCEPTING
        if accepting and states == {State.DECLINED}:
            verdict.changes.append(f"{claimed}: the proposal was declined")
        elif not accepting and states and states <= {State.ACCEPTED, State.DONE}:
            verdict.changes.append(f"{claimed}: the proposal was accepted")
        else:
            return None
        return _TURNED[found.group("verb")] + rest

    def _state(self, predicate: str, subject: Speaker, verdict: Verdict) -> Speaker | None:
        """ "is bored" when only the other speaker said they were."""
        found = re.match(rf"{_STATE_VERBS}\s+{_DEGREE}(?P<word>[a-z]+)\b", predicate)
        if found is None or len(self.ledger.speakers) != 2:
            return None
        word = found.group("word")
        other = self.ledger.other(subject)
        if other is None or word in self.ledger.states(subject):
            return None
        if word in self.ledger.states(other):
            verdict.changes.append(f"{word}: said of the other speaker")
            return other
        return None

    def _name_words(self) -> frozenset[str]:
        return frozenset(w for name in self.names.values() for w in content_words(name))


def _third_person(word: str) -> bool:
    """ "sends", "fixes", "carries": a verb in the third person present."""
    if not word.endswith("s") or word.endswith("ss"):
        return False
    return lemma(word) != word and is_verb(word)


_OBJECT_END = re.compile(
    r"\s+(?:due|because|on|at|for|in|from|to|with|after|before|and|but|while|as)\b|[,;.!?]"
)


def _passive(predicate: str, base: str, spelled: str = "") -> str | None:
    """ "cancels his flight QX7 due to the storm" as "'s flight QX7 is cancelled due to
    the storm", to follow the subject's name; None when the predicate has no such object.
    The participle is spelled as in ``spelled`` (the messages) where it occurs there."""
    found = re.match(r"[a-z]+\s+(?:his|her|their)\s+", predicate)
    if found is None:
        return None
    rest = predicate[found.end() :]
    end = _OBJECT_END.search(rest)
    cut = end.start() if end else len(rest)
    forms = [str(f) for f in lemminflect.getInflection(base, tag="VBN")] or [base + "ed"]
    participle = next((f for f in forms if re.search(rf"\b{f}\b", spelled)), forms[0])
    return f"'s {rest[:cut]} is {participle}{rest[cut:]}"


def _verb_beside(sentence: str, things: frozenset[str]) -> str | None:
    """The verb that gives one of ``things`` in ``sentence``: a past form just before it
    ("added a credit of $8.50") or a participle after it ("the $43.70 credit is applied"),
    as its base, or "give" when the thing is now the customer's ("the credit is now on your
    account"); None if there is none, or a modal makes it not yet done."""
    tokens = re.findall(r"[\w'$%-]+(?:\.\d+)?", sentence.lower())
    for index, token in enumerate(tokens):
        if not content_words(token) & things:
            continue
        before = tokens[max(0, index - _BESIDE) : index]
        after = tokens[index + 1 : index + 1 + _BESIDE]
        if any(word in _MODALS or _NEGATION.fullmatch(word) for word in [*before, *after]):
            continue
        for word in [*reversed(before), *after]:
            base = lemma(word)
            if is_past(word) and base not in _LIGHT and base in _GIVING_ACTS:
                return base
        if _NOW_THEIRS.match(" ".join(after)):
            return "give"
        # "a text alert at $100 is now active": the state a few words further on.
        further = tokens[index + 1 : index + 1 + 2 * _BESIDE]
        state = _NOW_THEIRS.search(" ".join(further))
        if state and not any(_is_modal_or_negation(w) for w in further):
            return "give"
    return None


def _is_modal_or_negation(word: str) -> bool:
    return word in _MODALS or bool(_NEGATION.fullmatch(word))


# "advises Ana to set up …": advice to do something, as the predicate's first verb.
_ADVISED = re.compile(
    r"(?P<verb>advises|suggests|recommends|tells|asks|encourages|instructs|reminds)\s+"
    r"(?P<whom>him|her|them|[A-Z#][\w#'.-]*(?:\s+[A-Z][\w'.-]*)*)\s+to\s+(?P<act>[a-z]+)"
    r"(?P<particle>\s+(?:up|on|off|in|out|back))?\s+"
)
# A thing now the customer's: "is now on your account", "is now active".
_NOW_THEIRS = re.compile(r"\b(?:is|are) now (?:on|in|active|live|available)\b")


# A predicate of a clause: its first verb, or one joined to it ("…, then refunds him").
_PREDICATE = re.compile(
    r"(?:^\s*(?:(?:also|then|later|finally|eventually|\w+ly)\s+)?|,\s*(?:and\s+|then\s+)?|"
    r"\s+and\s+|\s+then\s+)(?P<verb>[a-z]+)\b"
)


def _joined_acts(text: str) -> Iterator[tuple[re.Match[str], str, int]]:
    """The predicates joined after the first in ``text`` ("…and provides training", ", then
    confirms…") told as done (a verb in the third person or the past, not one of speech):
    each match, its verb's base, and where the predicate ends."""
    found_all = list(_PREDICATE.finditer(text))
    for number, found in enumerate(found_all):
        word = found.group("verb")
        if found.start() == 0 or not (_third_person(word) or is_past(word)):
            continue
        base = lemma(word)
        if not is_verb(word) or base in _SPEECH:
            continue
        yield (
            found,
            base,
            found_all[number + 1].start() if number + 1 < len(found_all) else len(text),
        )


# Acts that change what someone has, owes or is: reported done, a message must name them
# ("buys" is not one: a purchase is said "I'll take it").
_CONSEQUENTIAL_WORDS = """
    refund reimburse pay charge cancel book reserve sell hire fire sign approve
    deliver ship replace repair fix install marry divorce quit resign win lose steal lend
    borrow rent promote allow permit grant waive transfer"""
_CONSEQUENTIAL = frozenset(_CONSEQUENTIAL_WORDS.split())
# "offers a credit", as the predicate's first verb or one joined to it.
_OFFERS = re.compile(r"(?:^|,\s*(?:and\s+)?|\s+and\s+|\s+then\s+)(?P<verb>offers)\s+(?!to\b)")
# How many words from the thing given its verb may be ("added a credit", "is now applied").
_BESIDE = 4
_MODALS = frozenset({"can", "could", "will", "would", "may", "might", "should", "shall"})
_NEGATION = re.compile(r"not|never|no|\w+n't")
# Acts that give the customer something.
_GIVING_ACTS_WORDS = """
    add apply issue credit refund waive send email mail ship grant give book reserve extend
    reimburse deposit transfer upgrade activate schedule arrange"""
_GIVING_ACTS = frozenset(_GIVING_ACTS_WORDS.split())


def _third_person_form(base: str) -> str:
    forms = lemminflect.getInflection(base, tag="VBZ")
    return str(forms[0]) if forms else base + "s"


def _may_do(entry: Entry, subject: Speaker) -> bool:
    return entry.doer is subject or (entry.doer is None and entry.not_by is not subject)


def _said_of(entries: list[Entry], subject: Speaker) -> bool:
    return any(e.doer is subject or e.said_by is subject for e in entries)


def _texts(entries: list[Entry]) -> str:
    return "\n".join(e.act.text for e in entries)


def _all_words(entries: list[Entry]) -> frozenset[str]:
    words: set[str] = set()
    for entry in entries:
        words |= entry.act.words
    return frozenset(words)


def _as_not_done(entry: Entry, subject: Speaker) -> str:
    """How a clause says what the ledger has: "will", "offers to", "wants to"…"""
    if entry.state is State.ACCEPTED or entry.mood is Mood.PROMISED:
        return "will"
    if entry.mood is Mood.OFFERED:
        return "offers to"
    if entry.mood is Mood.WANTED:
        return "wants to"
    if entry.mood is Mood.ASKED:
        return "is asked to"
    if entry.said_by is subject:
        return "proposes to"
    return "is advised to"


# Where what a clause's first predicate is about ends: a relative clause, a reason, the next
# predicate ("…, and adds a request").
_RELATIVE = re.compile(
    r",?\s+(?:which|who|whom|whose|where|because|since|after|before|so|but|while|and (?=[a-z]+s\b))"
    r"\b|[,;]\s+"
)


def _main(text: str) -> str:
    return _RELATIVE.split(text, maxsplit=1)[0]


def without_clause(text: str, clause: Clause, clauses: list[Clause]) -> str | None:
    """``text`` without a clause that must go: None when it is the sentence's first (the
    sentence goes: its later clauses were told as its sequel, "…, but Kim says he can't due
    to the note", and on their own read wrongly), else the sentence ended before it."""
    return None if clause is clauses[0] else cut_before(text, clause.start)


def cut_before(text: str, start: int) -> str:
    """``text`` ended before the clause at ``start``, and the conjunction that joined it."""
    cut = re.sub(r"[\s,;]*(?:and|but|then|so|while)?\s*$", "", text[:start])
    return cut.rstrip(" ,;") + _end(text)


def _end(text: str) -> str:
    ending = re.search(r"[.!?]\s*$", text)
    return ending.group(0).strip() if ending else "."
