"""Who did what: every summary sentence's subject checked against the messages behind it.

A clause like "Maria recommends the pet store" is supported by what its words point to in
the conversation: the distinctive words, IDs and numbers of the clause are found in the
messages of one speaker more than another's, and the speaker who first said them is the one
who asked, offered, proposed or told (for verbs of response, "accepts", "refuses",
"confirms", it is the other one). When the words clearly point to another speaker than the
clause's subject, the subject is wrong: the clause's two names are swapped (in a two-party
conversation) or the sentence is dropped. Unclear clauses are left alone: the check corrects
only what the transcript shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from threadwise.superpowers.summarize import clause_words
from threadwise.text.exclamations import is_exclamation
from threadwise.text.transcript import Said, Speaker

# Verbs whose subject answers what the other person brought up.
_RESPONSES_WORDS = """
    accept agree refuse decline reject deny approve thank follow take choose pick
    receive get learn hear obey comply consent grant allow permit forgive apologize
    """
_RESPONSES = frozenset(_RESPONSES_WORDS.split())
# Verbs of saying: the subject is who said the words, not who does what they are about.
_SPEECH_VERBS = """
    ask say tell suggest propose recommend offer invite want request complain mention explain
    insist warn advise remind inform report claim admit wonder think believe hope prefer like
    love hate need apologize promise describe answer reply beg urge encourage persuade
    convince criticize praise compliment greet introduce argue expect worry doubt plan
    decide intend demand inquire query note point share express flag raise highlight
    notice spot question dispute notify contact call email message reach discuss
    """
SPEECH_VERBS = frozenset(_SPEECH_VERBS.split())
# What someone must, will or should do was usually asked of them by the other person, and
# "confirms" is said both of giving and of checking information: no evidence either way.
_UNDECIDED_WORDS = """
    must will would should shall can could may might need needs has have had is to
    confirm confirms confirmed verify verifies verified
    """
_UNDECIDED = frozenset(_UNDECIDED_WORDS.split())
# A denial answers what the other person brought up, in their words.
_NEGATED = re.compile(r"\b(?:not|never|no|nothing)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    subject: str  # a speaker's name in the prompt
    start: int  # where the subject starts in the sentence
    end: int  # where the clause ends
    verb: str
    joint: bool = False  # one of two subjects ("Sam and Lee celebrate"): nothing to swap


@dataclass
class Attribution:
    """A sentence as checked: its text (names swapped if they were wrong), whether it is
    kept, and the messages that support it."""

    text: str
    kept: bool = True
    fixed: bool = False
    messages: list[Said] = field(default_factory=list)


# The subject's own evidence may be at most this share of the other speaker's for the
# clause to be given to the other.
_MARGIN = 0.5


class Attributor:
    """Checks sentences against one transcript; ``names`` are the speakers' prompt names."""

    def __init__(self, messages: Sequence[Said], names: dict[Speaker, str]) -> None:
        self.messages = list(messages)
        self.names = names
        self.by_name = {name: speaker for speaker, name in names.items()}
        self._short = _short_names(names)
        # In English: a message written in another language is read in its English reading.
        self._stems = [set(clause_words.content_words(m.english)) for m in self.messages]
        # Who said each word (for what a speaker asked, offered, told), and who does what
        # the word is part of, "I" and "you" resolved (for what a speaker did).
        self.said = _Index()
        self.done = _Index()
        # Who does what each verb says, common verbs ("help", "pay", "go") included.
        self.acts = _Index()
        speakers = list(names)
        for message, stems in zip(self.messages, self._stems, strict=True):
            if message.addresses_model:
                continue  # no evidence of who said or did anything (see ``evidence``)
            self.said.add(stems, message.speaker)
            for part in _PARTS.split(message.english):
                if is_exclamation(part):
                    continue  # "Get out of here!", "You're kidding": surprise, no one's act
                for stems, actor in _actors(part, message.speaker, speakers):
                    self.done.add(stems, actor)
                # Only what a pronoun says: "Hurry up!" is no one's act yet.
                for stems, actor in _actors(part, message.speaker, speakers, clause_words.verbs)[
                    1:
                ]:
                    self.acts.add(stems, actor)
        # Speakers' names are no evidence for what they did.
        for name in names.values():
            for stem in clause_words.content_words(name):
                self.said.forget(stem)
                self.done.forget(stem)

    def check(self, sentence: str) -> Attribution:
        result = Attribution(sentence)
        for clause in reversed(self.clauses(sentence)):
            if clause.joint:
                continue  # swapping one of "Sam and Lee" would make them "Lee and Lee"
            speaker = self.by_name[clause.subject]
            body = sentence[clause.start : clause.end]
            predicates = _predicates(body, clause.verb)
            verdicts = [self._verdict(body[p.start : p.end], p.verb, speaker) for p in predicates]
            wrong = [v is not None and v is not speaker for v in verdicts]
            main_undecided = _undecided(clause.verb, body[: predicates[0].end])
            if wrong[0] or (main_undecided and any(wrong) and len(self.names) == 2):
                # The clause's subject is wrong ("but Sam is skeptical and suggests a cab",
                # when it was Lee who suggested it): the other speaker is its subject.
                verdict = next(v for v, w in zip(verdicts, wrong, strict=True) if w)
                if len(self.names) == 2 or not _responds(clause.verb):
                    result.text = self._swap(result.text, clause, speaker, verdict)
                    result.fixed = True
                else:
                    result.kept = False
                continue
            # A later predicate of the clause that was someone else's goes: "Sam sends Lee
            # to the lab and asks him to use the restroom" (Lee asked).
            for predicate, bad in reversed(list(zip(predicates, wrong, strict=True))[1:]):
                if bad:
                    start, end = clause.start + predicate.start, clause.start + predicate.end
                    result.text = result.text[:start] + result.text[end:]
                    result.fixed = True
            # "Sam asks Lee to pay his bill" when it was Sam who wanted to pay.
            result.text = self._own_wish(result.text, clause, speaker)
            if result.text != sentence:
                result.fixed = True
        result.messages = self.evidence(result.text)
        return result

    def _verdict(self, predicate: str, verb: str, subject: Speaker) -> Speaker | None:
        """Who the words of one predicate point to, unless its verb decides nothing."""
        if _undecided(verb, predicate):
            return None
        return self._expected(_main_part(predicate), verb, subject)

    def _own_wish(self, text: str, clause: Clause, subject: Speaker) -> str:
        """In ``clause``, "asks Lee to pay" becomes "wants to pay" when paying is what the
        subject said they would do ("I want to pay the bill") and Lee never did."""
        other = self._other(subject)
        if other is None:
            return text
        main = len(_main_part(text[clause.start : clause.end]))
        if re.match(r",?\s+(?:who|whom)\b", text[clause.start + main :]):
            return text  # "asks Lee to help, who tells him to...": "who" needs Lee
        head, body, tail = (
            text[: clause.start],
            text[clause.start :][:main],
            text[clause.start + main :],
        )

        def own(match: re.Match[str]) -> str:
            named = match.group("whom")
            if named not in ("him", "her", "them") and self._full(named) != self.names[other]:
                return match.group(0)
            doers = self.acts.users.get(clause_words.stem(match.group("act").lower()), set())
            return f"wants to {match.group('act')}" if doers == {subject} else match.group(0)

        return head + _ASKS_TO.sub(own, body) + tail

    def clauses(self, sentence: str) -> list[Clause]:
        """The clauses of ``sentence`` whose subject is a speaker."""
        found = []
        for match in self._short.finditer(sentence):
            before = sentence[: match.start()]
            after = sentence[match.end() :]
            if not re.search(
                r"(?:^\W*|[,;:]\s*(?:and\s+|but\s+|so\s+|then\s+|while\s+|who\s+)?|"
                r"\b(?:and|but|so|then|while|after|before|when|because|although|as|until)\s+)$",
                before,
            ):
                continue
            verb = re.match(
                r"\s+(?:(?:also|then|later|only|just|finally|still|again|now|first|"
                r"immediately|eventually|\w+ly)\s+)?((?:is|was|gets|got|needs|has|have)\s+\w+|[a-z]+)\b",
                after,
            )
            if verb is None or after.startswith("'"):
                continue
            joint = bool(
                re.match(_AND + self._short.pattern, after)
                or re.search(self._short.pattern + _AND + "$", before)
            )
            subject = self._full(match.group(0))
            found.append(Clause(subject, match.start(), 0, verb.group(1), joint))
        clauses = []
        for number, clause in enumerate(found):
            end = found[number + 1].start if number + 1 < len(found) else len(sentence)
            clauses.append(Clause(clause.subject, clause.start, end, clause.verb, clause.joint))
        return clauses

    def evidence(self, sentence: str) -> list[Said]:
        """The messages that support ``sentence``: those sharing most of its content words,
        the subjects' own messages first; those written to the model too, so that a sentence
        that only they support is known (``checks`` drops it)."""
        stems = set(clause_words.content_words(sentence))
        if not stems:
            return []
        scored = []
        for position, own in enumerate(self._stems):
            score = sum(clause_words.weight(s) for s in stems & own)
            if score:
                scored.append((score, position))
        if not scored:
            return []
        best = max(score for score, _ in scored)
        subjects = {self.by_name[c.subject] for c in self.clauses(sentence)}
        chosen = [p for score, p in scored if score >= max(1.0, best / 2)]
        chosen.sort(key=lambda p: (self.messages[p].speaker not in subjects, p))
        return [self.messages[p] for p in sorted(chosen[:3])]

    def _expected(self, clause: str, verb: str, subject: Speaker) -> Speaker | None:
        """The speaker the clause's words point to, when they clearly do."""
        introduced: dict[Speaker, float] = {}
        verb_stem = clause_words.stem(verb.split()[-1].lower())
        # What someone said is in their words; what someone did, only its verb tells reliably
        # ("you charged me twice": the other person charged).
        speech = verb_stem in SPEECH_VERBS
        index = self.said if speech else self.done
        # The verb of saying is the summary's word ("reports", "asks"), not the speaker's.
        stems = set(clause_words.content_words(clause)) - {verb_stem} if speech else {verb_stem}
        for stem in stems:
            users = index.users.get(stem)
            if not users:
                continue
            # A word only one speaker used is strong evidence; one both used, weak, for the
            # one who said it first. A verb of doing counts twice: it is all there is.
            weight = clause_words.weight(stem) * (1.0 if len(users) == 1 else 0.4)
            if not speech:
                weight *= 2
            first = index.first[stem]
            introduced[first] = introduced.get(first, 0.0) + weight
        if not introduced:
            return None
        ranked = sorted(introduced.items(), key=lambda item: -item[1])
        top, top_score = ranked[0]
        own = introduced.get(subject, 0.0)
        if _responds(verb):
            # The subject answers: the words should be the others'. Wrong when the subject
            # brought all of them up.
            others = sum(v for s, v in introduced.items() if s is not subject)
            if own >= 3.0 and others == 0.0:
                return self._other(subject)
            return None
        if top is not subject and top_score >= 2.0 and own <= top_score * _MARGIN:
            return top
        return None

    def _other(self, speaker: Speaker) -> Speaker | None:
        others = [s for s in self.names if s is not speaker]
        return others[0] if len(others) == 1 else None

    def _swap(self, text: str, clause: Clause, wrong: Speaker, right: Speaker | None) -> str:
        """``text`` with the clause's subject (and, where named, its object) swapped."""
        if right is None:
            return text
        head, body, tail = text[: clause.start], text[clause.start : clause.end], text[clause.end :]
        a, b = self.names[wrong], self.names[right]

        def swapped(match: re.Match[str]) -> str:
            found = self._full(match.group(0))
            return b if found == a else a if found == b else match.group(0)

        return head + self._short.sub(swapped, body) + tail

    def _full(self, name: str) -> str:
        if name in self.by_name:
            return name
        for full in self.by_name:
            if full.split()[0] == name:
                return full
        return name


class _Index:
    """Word stems and the speakers they belong to, and the first one to each."""

    def __init__(self) -> None:
        self.first: dict[str, Speaker] = {}
        self.users: dict[str, set[Speaker]] = {}

    def add(self, stems: set[str], speaker: Speaker | None) -> None:
        if speaker is None:
            return
        for stem in stems:
            self.first.setdefault(stem, speaker)
            self.users.setdefault(stem, set()).add(speaker)

    def forget(self, stem: str) -> None:
        self.first.pop(stem, None)
        self.users.pop(stem, None)


# What joins two subjects: "Sam and Lee", "Sam, Lee and Kim", "Sam & Lee".
_AND = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|&)\s+)"
_PARTS = re.compile(r"[.!?;]+\s*|,\s+(?:and|but|so)\s+")
_PRONOUN = re.compile(
    r"\b(?:(?P<first>I|I'm|I've|I'll|I'd|let me|we|we're|we've|we'll|we'd)|"
    r"(?P<second>you|you're|you've|you'll|you'd)|(?P<third>he|she|they|it|he's|she's|they're))\b",
    re.IGNORECASE,
)


def _actors(
    part: str,
    speaker: Speaker,
    speakers: list[Speaker],
    words: Callable[[str], list[str]] | None = None,
) -> list[tuple[set[str], Speaker | None]]:
    """The words of ``part`` of a message, each with who does what it says: after "I" the
    speaker, after "you" the other person ("I believe you charged me twice"), after "he" or
    "they" nobody known; before any of them the speaker, or the other person when the part
    is a request ("Please restart the router"). ``words`` picks the words (content words by
    default)."""
    words = words or clause_words.content_words
    others = [s for s in speakers if s is not speaker]
    other = others[0] if len(others) == 1 else None
    actor: Speaker | None = other if re.match(r"\W*(?:please|kindly)\b", part, re.I) else speaker
    found: list[tuple[set[str], Speaker | None]] = []
    start = 0
    for match in _PRONOUN.finditer(part):
        found.append((set(words(part[start : match.start()])), actor))
        actor = speaker if match.group("first") else other if match.group("second") else None
        start = match.end()
    found.append((set(words(part[start:])), actor))
    return found


_RELATIVE = re.compile(r",?\s+(?:which|who|whom|whose|where|including|whereas)\b")


def _main_part(clause: str) -> str:
    """The clause without its relative clauses ("..., which include the newspaper"): they
    tell what the other person said or did as often as the subject."""
    return _RELATIVE.split(clause, maxsplit=1)[0]


def _responds(verb: str) -> bool:
    """Does the subject of ``verb`` answer the other person ("accepts", "is told")?"""
    words = verb.lower().split()
    return words[0] in ("is", "was", "gets", "got") or clause_words.stem(words[-1]) in _RESPONSES


def _short_names(names: dict[Speaker, str]) -> re.Pattern[str]:
    """Each prompt name, and its first word where that is unique (models shorten names)."""
    forms = set(names.values())
    firsts = [n.split()[0] for n in names.values() if " " in n]
    forms |= {f for f in firsts if firsts.count(f) == 1 and f not in ("Mr.", "Mrs.", "Dr.")}
    ordered = sorted(forms, key=len, reverse=True)
    return re.compile(r"(?<![\w#])(?:" + "|".join(re.escape(f) for f in ordered) + r")(?![\w#])")


@dataclass(frozen=True)
class _Predicate:
    start: int  # in the clause, where its conjunction starts (0 for the first)
    end: int  # before the clause's closing punctuation
    verb: str


# ", and asks him", " but suggests the", " then sends Lee": a clause's next predicate.
_NEXT_PREDICATE = re.compile(
    r",?\s+(?:and|but|then|and then|before|after)\s+(?:(?:also|then|later|finally|still|"
    r"\w+ly)\s+)?(?P<verb>[a-z]+s)\s+(?=(?:the|a|an|him|her|them|his|their|it|to|that|for|"
    r"about|on|with|[a-z]+ing|[A-Z#])\b)"
)
# (Not "advises Lee to set up an alert": advice the adviser then carried out is the ledger
# check's, ``ledger_check._advised_done``.)
_ASKS_TO = re.compile(
    r"\b(?:asks|tells|wants|requests|begs|urges|persuades|reminds)\s+"
    r"(?P<whom>him|her|them|[A-Z#][\w#]*(?: [A-Z][\w]*)?)\s+to\s+(?P<act>[a-z]+)\b"
)


def _predicates(clause: str, verb: str) -> list[_Predicate]:
    """The predicates of ``clause`` that share its subject: "Sam sends Lee to the lab and
    asks him to use the restroom" has two."""
    end = len(re.sub(r"[\s.!?;:]+$", "", _main_part(clause)))
    starts = [(m.start(), m.group("verb")) for m in _NEXT_PREDICATE.finditer(clause, 0, end)]
    bounds = [0, *(s for s, _ in starts), end]
    verbs = [verb, *(v for _, v in starts)]
    return [_Predicate(bounds[i], bounds[i + 1], verbs[i]) for i in range(len(verbs))]


def _undecided(verb: str, predicate: str) -> bool:
    """Does ``verb`` decide nothing about who did what (see ``_UNDECIDED``), or is the
    predicate a denial?"""
    return verb.split()[0].lower() in _UNDECIDED or bool(_NEGATED.search(predicate))
