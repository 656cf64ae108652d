"""Who asked, proposed, answered, apologized, thanked or gave an ID: checked against the messages.

The word-overlap check (``attribution``) cannot tell who asked about the bill when both
speakers used the word "bill". What a verb of speech claims is more specific: "Lee asks
about the bill" needs a question by Lee about it; "Lee suggests a cab" a proposal by Lee
("Why don't we take a cab?", "You should take a cab"); "Lee agrees" a yes from Lee to what the
other proposed; "Lee apologizes" a "sorry" from Lee; "Lee provides order A-20931" that Lee
wrote it first. When the clause's subject made no such act about the clause's words and the
other speaker did, the subject is the other speaker (two speakers: the names are exchanged,
as ``attribution`` does). When the subject answered the other way about two of the clause's
words ("Lee agrees to the 7:30 showing" after "No, not the 7:30 showing"), the verb is turned;
"agrees" to a proposal the subject never answered, or to what no message names ("Vince
agrees to help" when nobody asked for help), and an act denied that the subject did ("Lee
does not apologize"), go. So do a yes-no question no message asks ("asks if he can smoke"),
gratitude the subject never expressed, and being unable to do what the subject said yes to
("How can I miss it!"); "asks Bo to help" when the subject offered the help is an offer.
Predicates joined to a clause's first ("…, and asks…") are checked the same way. Clauses the
messages do not decide are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from threadwise.superpowers.summarize.ledger_check import Clause, Verdict, without_clause
from threadwise.superpowers.summarize.spoken import KINDS, Kind, Spoken
from threadwise.text.speech_acts import Mood, Reply, acts, content_words, lemma
from threadwise.text.transcript import Said, Speaker

# The verbs of ``KINDS`` as a summary writes them of its subject ("asks", "apologizes").
_THIRD_PERSON_KINDS = frozenset(
    w + ("es" if w.endswith(("sh", "ch", "s", "x")) else "s") for w in KINDS
) | frozenset({"expresses", "is"})
# The summary's verb for each answer, turned: "agrees to" → "declines to".
_TURNED = {
    "agrees to": "declines to",
    "agrees": "declines",
    "accepts": "declines",
    "consents to": "declines to",
    "refuses to": "agrees to",
    "refuses": "accepts",
    "declines to": "agrees to",
    "declines": "accepts",
    "rejects": "accepts",
}
# The speaker offering to do something themselves: "How can I help with…", "Let me help",
# "Do you want me to help…".
_SELF_OFFER = re.compile(
    r"\b(?:(?:how|what) (?:can|could|may|shall) i|(?:can|could|may|shall) i|let me|"
    r"(?:want|like) me to) (?P<verb>[a-z]+)\b"
)
# An ID or a number a speaker gives: digits, with letters or not ("A-20931", "7730-5512").
_VALUE = re.compile(r"(?<![\w-])(?=[\w-]*\d{3})[A-Za-z0-9][\w-]*[A-Za-z0-9]")
# "does not ask", "never apologizes": the act denied.
_NEGATED = re.compile(
    r"(?:does not|doesn't|did not|didn't|do not|don't|never|will not|won't|refuses to)\s+"
)


def _shifted(clause: Clause, shift: int) -> Clause:
    return replace(
        clause, start=clause.start + shift, name_end=clause.name_end + shift, end=clause.end + shift
    )


class _Denied:
    """A clause that denies an act its subject did: it goes."""


_DENIED = _Denied()
# Picking one of the options offered: no proposal of one's own.
_CHOICE = re.compile(r"\b(?:go with|go for|we'll take|i'll take|choose|pick|opt for)\b|option \d")
# "…, which Amy agrees to": an answer to what the clause before proposed.
_WHICH_ANSWER = re.compile(
    r"(?P<lead>,?\s*which\s+)(?P<name>[A-Z#][\w#'.-]*(?:\s+[A-Z][\w'.-]*)?)\s+"
    r"(?:agrees to|agrees|accepts)(?=\s*[.,;!?]|$)"
)
_OBJECT_PRONOUN = re.compile(r"\b(?:him|her|them|his|their)\b")
# Thanks said in other words: "expresses gratitude", "is grateful".
_GRATITUDE = re.compile(
    r"(?:expresses|shows|voices) (?:(?:his|her|their) )?(?:gratitude|thanks|appreciation)|"
    r"(?:is|are) (?:grateful|thankful)"
)
# Not being able to: "is unable to go", "can't come".
_UNABLE = re.compile(
    r"(?:is|are|was|were) (?:unable|not able) to\s+|(?:cannot|can't|can not|could not|"
    r"couldn't)\s+(?=\w)"
)
# A predicate joined to the clause's first by "and" or "then", its verb one of speech
# ("…, and asks", "…then suggests").
_JOIN = re.compile(
    r"(?P<lead>(?:,\s*(?:and\s+|then\s+)?|\s+and\s+|\s+then\s+)"
    r"(?:(?:also|then|later|finally|eventually|again|\w+ly)\s+)?)"
    rf"(?=(?:{'|'.join(sorted(_THIRD_PERSON_KINDS))})\b)"
)
# Adverbs between the subject and its verb ("Lee then asks").
_LEAD = re.compile(
    r"\s+(?:(?:also|then|later|finally|eventually|again|first|now|still|just|\w+ly)\s+)?"
)
# What the clause is about ends at a relative clause, a reason or the next predicate.
_ABOUT_END = re.compile(
    r",?\s+(?:which|who|whom|whose|where|because|since|after|before|so|but|while|and)\b|[,;(]"
)
# Words of the clause that say nothing about which message it restates.
_UNINFORMATIVE_WORDS = """
    ask inquire enquire request suggest propose recommend advise invite offer urge encourage
    agree accept consent refuse decline reject apologize apologise thank whether about
    something anything someone anyone thing"""
_UNINFORMATIVE = frozenset(_UNINFORMATIVE_WORDS.split())


class SpeechCheck:
    """Checks the clauses of summary sentences whose verb is one of speech (``Kind``)."""

    def __init__(self, messages: Sequence[Said], names: dict[Speaker, str]) -> None:
        self.names = names
        self.speakers = tuple(dict.fromkeys(m.speaker for m in messages))
        self._name_words = frozenset(w for n in names.values() for w in content_words(n))
        self.spoken = Spoken(messages)
        self._said = self.spoken.sentences
        self._messages = [m for m in messages if not m.addresses_model]
        # The messages' English, for a word or a figure in any form (``_written``).
        self._text = " ".join(m.english for m in self._messages).lower()

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict:
        verdict = Verdict(sentence)
        verdict.text = self._relative_answers(sentence, clauses, verdict)
        for clause in reversed(clauses):
            text = verdict.text
            if text is None:
                break
            body = text[clause.name_end : clause.end]
            joined = self._joined(body, clause.subject, verdict)
            if joined != body:
                # Later clauses move with the text after this one.
                shift = len(joined) - len(body)
                text = text[: clause.name_end] + joined + text[clause.end :]
                moved = replace(clause, end=clause.end + shift)
                clauses = [
                    moved if c is clause else _shifted(c, shift) if c.start >= clause.end else c
                    for c in clauses
                ]
                clause = moved
                verdict.text, body = text, joined
                if len(joined.strip(" .!?").split()) < 2:
                    # "Bo confirms.": a bare verb left says nothing; the clause goes.
                    verdict.text = without_clause(text, clause, clauses)
                    continue
            changed = self._clause(body, clause.subject, verdict)
            if changed is None:
                continue
            if isinstance(changed, _Denied):
                verdict.text = without_clause(text, clause, clauses)
                continue
            if isinstance(changed, Speaker):
                swapped = self._exchanged(text[clause.start : clause.end], clause.subject, changed)
                if swapped == text[clause.start : clause.end]:
                    # The subject as written ("Julia" for Julia Mendoza): its name replaced.
                    swapped = self.names[changed] + text[clause.name_end : clause.end]
                verdict.text = text[: clause.start] + swapped + text[clause.end :]
            else:
                verdict.text = text[: clause.name_end] + changed + text[clause.end :]
        return verdict

    def _joined(self, body: str, subject: Speaker, verdict: Verdict) -> str:
        """``body`` with each predicate joined after its first ("…, and asks if…", "…and
        expresses gratitude…") checked as a clause of its own: gone, restated, or told of the
        other speaker (", and Bo suggests…")."""
        # (Not "Lee then asks…": an adverb before the clause's own first predicate.)
        joins = [j for j in _JOIN.finditer(body) if body[: j.start()].strip()]
        for number in reversed(range(len(joins))):
            join = joins[number]
            end = joins[number + 1].start() if number + 1 < len(joins) else len(body)
            tail = re.search(r"[.!?]\s*$", body[join.end("lead") : end])
            stop = end - (len(tail.group(0)) if tail else 0)
            predicate = " " + body[join.end("lead") : stop]
            changed = self._clause(predicate, subject, verdict)
            if changed is None:
                continue
            if isinstance(changed, _Denied):
                body = body[: join.start()] + body[stop:]
            elif isinstance(changed, Speaker):
                if _OBJECT_PRONOUN.search(predicate):
                    continue  # "asks him to…": whom "him" was would need exchanging too
                other = self._exchanged(predicate, subject, changed)
                body = f"{body[: join.start()]}, and {self.names[changed]}{other}{body[stop:]}"
            else:
                body = body[: join.end("lead")] + changed.lstrip() + body[stop:]
        return body

    def _clause(
        self, body: str, subject: Speaker, verdict: Verdict
    ) -> str | Speaker | _Denied | None:
        """The clause's body as it should read, the speaker who should be its subject, or
        None when the messages do not decide."""
        lead = _LEAD.match(body)
        start = lead.end() if lead else 0
        negated = _NEGATED.match(body[start:])
        if negated:
            start += negated.end()
        grateful = _GRATITUDE.match(body[start:])
        if grateful is not None and not negated:
            return self._thanked(subject, verdict)
        unable = _UNABLE.match(body[start:])
        if unable is not None and not negated:
            about = _ABOUT_END.split(body[start + unable.end() :], maxsplit=1)[0]
            if self._accepted(subject, content_words(about) - self._name_words):
                # "is unable to go" when the subject's answer was "How can I miss it!".
                verdict.changes.append("unable: the subject accepted")
                return _DENIED
            return None
        found = re.match(r"(?P<verb>[a-z]+)\b(?P<to>\s+to\b)?", body[start:])
        if found is None:
            return None
        kind = KINDS.get(lemma(found.group("verb")))
        if kind is None:
            return None
        about = _ABOUT_END.split(body[start + found.end() :], maxsplit=1)[0]
        words = content_words(about) - self._name_words - _UNINFORMATIVE
        words = frozenset(w for w in words if not w.endswith("ly"))
        if kind is Kind.GIVE:
            return None if negated else self._giver(about, subject, verdict)
        if negated:
            # "Lee does not apologize" when Lee did: the clause goes.
            if self.spoken.evidence(kind, subject, words) >= min(2, len(words) or 1):
                verdict.changes.append(f"{kind.value}: denied, but the subject did")
                return _DENIED
            return None
        other = self._other(subject)
        if kind is Kind.ASK and other is not None and found.group("to") is None:
            offer = self._self_offer(body[start + found.end() :], subject, other, verdict)
            if offer is not None:
                return body[:start] + offer
        if kind is Kind.ASK and words and self._unasked(body[start + found.end() :], words):
            # "asks if the order is over $15" when no question was about it.
            verdict.changes.append(f"{kind.value}: nobody asked it")
            return _DENIED
        if kind is Kind.ACCEPT and words and self._unanswered(subject, words):
            # "Lee agrees to go for coffee" when the coffee was proposed in the last words.
            verdict.changes.append(f"{kind.value}: the proposal was never answered")
            return _DENIED
        if kind is Kind.ACCEPT and words and not self._written(words, about):
            # "Vince agrees to help" when nobody asked for help, nor wrote the word.
            verdict.changes.append(f"{kind.value}: nobody proposed it")
            return _DENIED
        if kind in (Kind.ACCEPT, Kind.REFUSE):
            turned = self._answer(kind, subject, words)
            if turned:
                phrase = found.group(0)
                if phrase in _TURNED:
                    verdict.changes.append(f"{kind.value}: the subject answered the other way")
                    rest = body[start + found.end() :]
                    return body[:start] + _TURNED[phrase] + rest
                return None
        if other is None:
            return self._proposer(kind, subject, words, verdict)
        own, theirs = (
            self.spoken.evidence(kind, subject, words),
            self.spoken.evidence(kind, other, words),
        )
        if kind in (Kind.ACCEPT, Kind.REFUSE) and self.spoken.did(kind, subject):
            return None  # the subject answered so at least once: maybe to this
        needed = 1 if kind in (Kind.APOLOGIZE, Kind.THANK) else min(2, len(words) or 1)
        if own == 0 and theirs >= needed:
            verdict.changes.append(f"{kind.value}: the other speaker did")
            return other
        if own == theirs == 0 and lemma(found.group("verb")) == "invite":
            return self._invited_others(body[start + found.end() :], subject, other, verdict)
        return None

    def _proposer(
        self, kind: Kind, subject: Speaker, words: frozenset[str], verdict: Verdict
    ) -> Speaker | None:
        """In a group, "Julia suggests Casa Alfama" when Julia proposed nothing of the kind
        and one other speaker proposed or offered it ("I can offer two: 1) Casa Alfama…"):
        that speaker; else None."""
        if kind not in (Kind.PROPOSE, Kind.OFFER) or len(words) < 2:
            return None
        if self._put_forward(subject, words):
            return None
        found = [s for s in self.speakers if s is not subject and self._put_forward(s, words) >= 2]
        if len(found) != 1:
            return None
        verdict.changes.append(f"{kind.value}: another speaker of the group did")
        return found[0]

    def _put_forward(self, speaker: Speaker, words: frozenset[str]) -> int:
        """How many of ``words`` a proposal or offer of ``speaker``'s holds; a choice among
        options ("We'll go with option 1, Casa Alfama") puts nothing forward."""
        return max(
            (
                len(words & said.message)
                for said in self._said
                if said.speaker is speaker
                and not _CHOICE.search(said.text)
                and (self.spoken.does(Kind.PROPOSE, said) or self.spoken.does(Kind.OFFER, said))
            ),
            default=0,
        )

    def _invited_others(
        self, rest: str, subject: Speaker, other: Speaker, verdict: Verdict
    ) -> str | _Denied | None:
        """ "invites Bo to brunch with the Johnsons" when the subject only reported inviting
        others ("I've invited them for brunch") and proposed nothing to Bo: "has invited the
        Johnsons to brunch", or nothing (the clause goes) when the summary names no guests."""
        found = re.match(
            rf"\s+{re.escape(self.names[other])}\s+(?P<to>to\s+[^,;.]+?)"
            r"(?:\s+with\s+(?P<guests>(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))?(?=[,;.]|$)",
            rest,
        )
        if found is None:
            return None
        reported = any(
            a.mood is Mood.DONE and a.verb == "invite"
            for said in self._said
            if said.speaker is subject
            for a in acts(said.text)
        )
        if not reported:
            return None
        verdict.changes.append("invites: the subject invited others, not the listener")
        if found.group("guests") is None:
            return _DENIED
        return f" has invited {found.group('guests')} {found.group('to')}{rest[found.end() :]}"

    def _giver(self, about: str, subject: Speaker, verdict: Verdict) -> Speaker | None:
        """Who first wrote the ID or number the clause says the subject gave ("provides
        order ID A-20931"): the other speaker, when it was them."""
        values = _VALUE.findall(about)
        other = self._other(subject)
        if not values or other is None:
            return None
        first = {v: next((m.speaker for m in self._messages if v in m.text), None) for v in values}
        if all(speaker is other for speaker in first.values()):
            verdict.changes.append(f"{Kind.GIVE.value}: the other speaker wrote it first")
            return other
        return None

    def _self_offer(
        self, rest: str, subject: Speaker, other: Speaker, verdict: Verdict
    ) -> str | None:
        """ "asks Bo to help with the washing up" when the subject's own words offered the
        help ("How can I help with the washing up?"): "offers to help Bo with the washing
        up"; None when the subject did not offer it."""
        found = re.match(rf"\s+{re.escape(self.names[other])}\s+to\s+(?P<verb>help|assist)\b", rest)
        if found is None:
            return None
        verb = found.group("verb")
        after = rest[found.end() :]
        words = content_words(_ABOUT_END.split(after, maxsplit=1)[0]) - self._name_words
        for said in self._said:
            offered = _SELF_OFFER.search(said.text) if said.speaker is subject else None
            if offered is None or lemma(offered.group("verb")) != verb:
                continue
            if words and not words & said.words:
                continue
            verdict.changes.append("asks: the subject offered it")
            return f"offers to {verb} {self.names[other]}{after}"
        return None

    def _thanked(self, subject: Speaker, verdict: Verdict) -> _Denied | None:
        """ "expresses gratitude for their hard work" goes when the subject never thanked
        (whatever the other did: what they thanked for is another matter)."""
        if self.spoken.did(Kind.THANK, subject):
            return None
        verdict.changes.append(f"{Kind.THANK.value}: the subject never thanked")
        return _DENIED

    def _accepted(self, subject: Speaker, words: frozenset[str]) -> bool:
        """Did ``subject`` answer yes to the other's proposal of ``words`` ("Do you want to
        go?" "How can I miss it!"), and refuse nothing anywhere?"""
        if self.spoken.did(Kind.REFUSE, subject):
            return False
        return any(
            said.speaker is subject
            and said.replies
            and said.answer is Reply.ACCEPTS
            and (not words or bool(words & said.exchange))  # "go": nothing to match
            for said in self._said
        )

    def _unasked(self, rest: str, words: frozenset[str]) -> bool:
        """Is the clause a question ("asks if he can smoke", "asks about the car trouble") that
        no question of either speaker has any of the words of?"""
        if not re.match(r"(?:\s+\S+){0,3}?\s+(?:if|whether|about)\b", rest):
            return False
        return not any(w[:4] in self.spoken.asked for w in words)

    def _written(self, words: frozenset[str], about: str) -> bool:
        """Does any message hold one of ``words`` in any form ("showing" as "show"), or a
        figure of ``about`` ("7:30")?"""
        if any(words & said.message for said in self._said):
            return True
        if any(figure in self._text for figure in re.findall(r"\d[\d:.,]*\d|\d", about)):
            return True
        return any(re.search(rf"\b{re.escape(word[:4])}", self._text) for word in words)

    def _unanswered(self, subject: Speaker, words: frozenset[str]) -> bool:
        """Did the other speaker propose what ``words`` say, and ``subject`` write nothing
        after it?"""
        proposed = [
            said.position
            for said in self._said
            if said.speaker is not subject
            and self.spoken.does(Kind.PROPOSE, said)
            and len(words & said.message) >= min(2, len(words))
        ]
        if not proposed:
            return False
        return not any(s.speaker is subject and s.position > min(proposed) for s in self._said)

    def _relative_answers(self, sentence: str, clauses: list[Clause], verdict: Verdict) -> str:
        """``sentence`` with "…, which Amy agrees to" turned ("which Amy turns down") when
        Amy's no to the proposal before it ("it's too spicy for me") is about more of its
        words than any yes of hers."""
        speakers = {name: speaker for speaker, name in self.names.items()}
        for found in reversed(list(_WHICH_ANSWER.finditer(sentence))):
            subject = speakers.get(found.group("name"))
            if subject is None:
                continue
            begun = max((c.start for c in clauses if c.start < found.start()), default=0)
            words = content_words(sentence[begun : found.start()]) - self._name_words
            words -= _UNINFORMATIVE
            # The no about more of its words than any yes ("Sounds great" to the next
            # proposal, "the Yuanyang pot", shares only "pot").
            refused = self.spoken.evidence(Kind.REFUSE, subject, words)
            if refused < 2 or refused <= self.spoken.evidence(Kind.ACCEPT, subject, words):
                continue
            verdict.changes.append(f"{Kind.ACCEPT.value}: the subject turned it down")
            turned = f"{found.group('lead')}{found.group('name')} turns down"
            sentence = sentence[: found.start()] + turned + sentence[found.end() :]
        return sentence

    def _answer(self, kind: Kind, subject: Speaker, words: frozenset[str]) -> bool:
        """Did ``subject`` answer the other way, and never the way the clause says?"""
        opposite = Kind.REFUSE if kind is Kind.ACCEPT else Kind.ACCEPT
        claimed = self.spoken.evidence(kind, subject, words)
        other = self.spoken.evidence(opposite, subject, words)
        # Two of the clause's words in the other answer: one ("the reservation") is too
        # little to tell which proposal was answered.
        return claimed == 0 and other >= 2

    def _other(self, speaker: Speaker) -> Speaker | None:
        others = [s for s in self.speakers if s is not speaker]
        return others[0] if len(self.speakers) == 2 and len(others) == 1 else None

    def _exchanged(self, clause: str, wrong: Speaker, right: Speaker) -> str:
        """``clause`` with the two speakers' names exchanged."""
        a, b = self.names[wrong], self.names[right]
        pattern = re.compile(rf"(?<![\w#])({re.escape(a)}|{re.escape(b)})(?![\w#])")
        return pattern.sub(lambda m: b if m.group(1) == a else a, clause)
