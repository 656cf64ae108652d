"""The ways a summary sentence goes wrong, each a function from a correct sentence to a wrong one.

Each kind returns ``None`` where it does not apply (no number to change, no third speaker to
swap with…). The sentences are simple: a speaker's prompt name, then a predicate that opens
with its verb ("Sam recommends Rachel's pet store."), so each kind rewrites the predicate's
first words; the English here is only as good as those sentences need.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

SEED = 20261126


@dataclass(frozen=True)
class Sentence:
    """A correct sentence: ``actor`` (a prompt name) then ``predicate``, and its dialogue's
    speakers and what each of them said."""

    actor: str
    predicate: str
    other: str | None  # the one other speaker, in a two-speaker dialogue
    own_words: frozenset[str]  # words of the actor's messages, lower case
    other_text: str  # the other speakers' messages

    @property
    def text(self) -> str:
        return f"{self.actor} {self.predicate}."

    def rng(self, kind: str) -> random.Random:
        # A string seed is hashed the same way in every process (unlike ``hash``).
        return random.Random(f"{SEED}:{kind}:{self.text}")

    def said(self, predicate: str) -> str:
        return f"{self.actor} {predicate}."


Corruption = Callable[[Sentence], str | None]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_IRREGULAR_PAST = {
    "saw": "see",
    "was": "be",
    "had": "have",
    "did": "do",
    "went": "go",
    "found": "find",
    "took": "take",
    "made": "make",
    "gave": "give",
    "sent": "send",
    "knew": "know",
    "won": "win",
    "threw": "throw",
    "forgot": "forget",
    "began": "begin",
    "came": "come",
    "met": "meet",
    "overslept": "oversleep",
    "brought": "bring",
    "woke": "wake",
    "chose": "choose",
    "told": "tell",
    "paid": "pay",
    "said": "say",
    "got": "get",
    "ran": "run",
    "put": "put",
    "set": "set",
    "read": "read",
}
_IRREGULAR_PRESENT = {"is": "be", "has": "have", "does": "do", "goes": "go"}
# Regular past forms whose base keeps its final "e" ("declined" → "decline", "provided" →
# "provide"), unlike "opened" or "trained": a rule of thumb, right for this corpus's verbs.
_E_STEM = re.compile(
    r"(?:[cvzu]|[aeiou]s|[^aeiou][aiou][dklmr]|[^aeiou](?:in|on|at|ot|ut)|[nrd]g)$"
)
_AUXILIARIES = frozenset(_words("is are was were has have had will would can could must may might"))
# Verbs of saying, wanting and being: "will say"/"does not say" is no act promised or done.
_NO_ACTS = frozenset(
    _words("""
    say ask tell suggest propose recommend offer invite want need mention explain warn advise
    remind inform report admit think believe hope prefer like love hate worry doubt decide
    agree refuse decline accept reject choose pick be have do seem find know note name
    describe complain insist argue urge cite conclude predict congratulate apologize thank
    wonder call interview examine mind keep require suspect infer defend
    """)
)


def base(verb: str) -> str | None:
    """The base form of a present ("sends") or past ("sent", "opened") verb; None when
    ``verb`` is neither (an adverb, an auxiliary)."""
    word = verb.lower()
    if word in _IRREGULAR_PRESENT:
        return _IRREGULAR_PRESENT[word]
    if word in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[word]
    if word in _AUXILIARIES or not word.isalpha() or word.endswith(("ly", "ss", "us")):
        return None
    if word.endswith("ied"):
        return word[:-3] + "y"
    if word.endswith("eed"):
        return word[:-1]  # "agreed"
    if word.endswith("ed"):
        stem = word[:-2]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "dlsfz":
            return stem[:-1]  # "stopped"
        return stem + "e" if _E_STEM.search(stem) else stem
    if word.endswith("ies"):
        return word[:-3] + "y"
    if re.search(r"(?:ch|sh|x|zz|o|ss)es$", word):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return None


def third_person(verb: str) -> str:
    """ "send" → "sends"."""
    if verb in {"be": "is", "have": "has", "do": "does", "go": "goes"}:
        return {"be": "is", "have": "has", "do": "does", "go": "goes"}[verb]
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    if re.search(r"(?:ch|sh|x|z|s|o)$", verb):
        return verb + "es"
    return verb + "s"


def _split(predicate: str) -> tuple[str, str]:
    """The predicate's first word and the rest (with its leading space)."""
    first, _, rest = predicate.partition(" ")
    return first, (" " + rest if rest else "")


def _replaced(text: str, start: int, end: int, new: str) -> str:
    """``text[start:end]`` replaced by ``new``, the article before it ("a"/"an") fitted."""
    head = text[:start]
    article = re.search(r"\b([Aa])n? $", head)
    if article and re.match(r"[a-z]", new, re.IGNORECASE):
        fitted = article.group(1) + ("n " if new[0].lower() in "aeiou" else " ")
        head = head[: article.start()] + fitted
    return head + new + text[end:]


def swap(sentence: Sentence) -> str | None:
    """The other speaker as the subject (and the subject where the other one was named):
    two-speaker dialogues only."""
    if sentence.other is None:
        return None
    names = {sentence.actor: sentence.other, sentence.other: sentence.actor}
    pattern = re.compile(rf"\b({re.escape(sentence.actor)}|{re.escape(sentence.other)})\b")
    return pattern.sub(lambda m: names[m.group(1)], sentence.text)


_PROMISED = re.compile(
    r"^(?:will|must|has to|had to|offers to|offered to|promises to|promised to|"
    r"(?:asks|asked) (?P<whom>\S+) to) (?!not\b)(?P<verb>[a-z]+)(?P<rest>.*)$"
)


def done_for_promised(sentence: Sentence) -> str | None:
    """An act promised, offered, owed or asked of the other speaker written as done
    ("will send" → "sends", "asks Sam to fill out the form" → "fills out the form"), and an
    act done written as only promised, offered or asked ("sends" → "will send")."""
    promised = _PROMISED.match(sentence.predicate)
    if promised:
        if promised.group("whom") not in (None, sentence.other):
            return None  # asked of someone who is not a speaker: no one's act here
        verb = promised.group("verb")
        return sentence.said(third_person(verb) + promised.group("rest"))
    first, rest = _split(sentence.predicate)
    verb = base(first)
    if verb is None or verb in _NO_ACTS:
        return None
    forms = ["will", "offers to", "promises to"]
    if sentence.other is not None and sentence.other not in sentence.predicate:
        forms.append(f"asks {sentence.other} to")
    return sentence.said(f"{sentence.rng('done').choice(forms)} {verb}{rest}")


_OBJECT = r"(?=(?:the|a|an|his|her|their|its|them|it)\b)"
_ACCEPT_REFUSE = (
    (r"\bis able to\b", "is unable to"),
    (r"\bis unable to\b", "is able to"),
    (rf"\bagree(s|d)? to {_OBJECT}", r"refuse\1 "),  # "agrees to the change"
    (r"\bagree(s|d)?\b", r"refuse\1"),
    (r"\brefuse(s|d)? to\b", r"agree\1 to"),
    (rf"\brefuse(s|d)? {_OBJECT}", r"accept\1 "),  # "refuses the voucher"
    (r"\brefuse(s|d)?\b", r"agree\1"),
    (r"\baccept(s|ed)?\b", r"decline\1"),
    (r"\bdecline(s|d)?\b", r"accept\1"),
    (r"\breject(s|ed)?\b", r"accept\1"),
    (r"\bapprove(s|d)?\b", r"reject\1"),
)


def accept_refuse(sentence: Sentence) -> str | None:
    """Accepted written as refused and the reverse ("agrees to" ↔ "refuses to", "accepts" ↔
    "declines", "is able to" ↔ "is unable to"): the first such phrase of the predicate."""
    found = [
        (m.start(), pattern, replacement)
        for pattern, replacement in _ACCEPT_REFUSE
        if (m := re.search(pattern, sentence.predicate))
    ]
    if not found:
        return None
    _, pattern, replacement = min(found, key=lambda f: f[0])
    predicate = re.sub(pattern, replacement, sentence.predicate, count=1)
    # "declineed": the replacement's own "e" and the ending's.
    predicate = re.sub(r"\b(declin|accept|reject|refus|agre)e?(e?d|s)?\b", _inflect, predicate)
    return sentence.said(predicate)


def _inflect(match: re.Match[str]) -> str:
    stem, ending = match.group(1), match.group(2) or ""
    if stem in ("accept", "reject"):
        return stem + ("ed" if ending.endswith("d") else ending)
    full = stem + "e"
    return full + ("d" if ending.endswith("d") else ending)


_NEGATED = (
    (r"\b(does|did|do) not (\w+)", None),
    (r"\bdoesn't (\w+)", None),
    (r"\b(is|was|has|had|will|would|must|can) not\b", r"\1"),
    (r"\bcannot\b", "can"),
    (r"\bwon't\b", "will"),
    (r"\b(is|was|has|had)n't\b", r"\1"),
    (r"\bnever\b ?", ""),
    (r"\bnothing\b", "something"),
    (r"\bnot\b ?", ""),
)


def negation(sentence: Sentence) -> str | None:
    """A negation removed ("does not want" → "wants", "is not sure" → "is sure") or, where
    the predicate has none, added to its verb ("wants" → "does not want")."""
    predicate = sentence.predicate
    for pattern, replacement in _NEGATED:
        match = re.search(pattern, predicate)
        if not match:
            continue
        if replacement is None:  # "does not want" → "wants", "did not call" → "called"
            verb = match.group(match.lastindex or 1)
            past = match.group(0).startswith("did")
            done = _past(verb) if past else third_person(verb)
            return sentence.said(predicate[: match.start()] + done + predicate[match.end() :])
        return sentence.said(
            predicate[: match.start()] + match.expand(replacement) + predicate[match.end() :]
        ).replace("  ", " ")
    first, rest = _split(predicate)
    if first in ("has", "had") and rest.startswith(" to "):
        return sentence.said(f"{'does' if first == 'has' else 'did'} not have{rest}")
    if first in ("is", "was", "has", "had", "will", "must", "can"):
        return sentence.said(f"{first} not{rest}" if first != "can" else f"cannot{rest}")
    verb = base(first)
    if verb is None:
        return None
    past = first.lower() in _IRREGULAR_PAST or first.endswith("ed")
    return sentence.said(f"{'did' if past else 'does'} not {verb}{rest}")


def _past(verb: str) -> str:
    irregular = {b: p for p, b in _IRREGULAR_PAST.items()}
    if verb in irregular:
        return irregular[verb]
    return verb + "d" if verb.endswith("e") else verb + "ed"


_WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
_MONTHS = _words(
    "January February March April May June July August September October November December"
)
_COUNTS = _words("two three four five six seven eight nine ten eleven twelve")
_ORDINALS = _words("second third fourth fifth sixth seventh eighth ninth tenth")
# A number, amount, time or date: digits not part of an ID ("INC-48213", "A-20931").
_NUMBER = re.compile(r"(?<![\w-])\$?\d+(?:[,.:]\d+)*(?![\w-]*\d)(?!-\w)")
_WORDS = re.compile(
    rf"\b(?:{'|'.join(_WEEKDAYS + _MONTHS)})\b|\b(?:{'|'.join(_COUNTS + _ORDINALS)})\b",
    re.IGNORECASE,
)


def number(sentence: Sentence) -> str | None:
    """A number, amount, time or date changed: one digit of it ("$725" → "$745"), or a
    number word, weekday or month for another."""
    rng = sentence.rng("number")
    found = [m for m in _NUMBER.finditer(sentence.predicate) if not _id_like(m.group(0))]
    found += list(_WORDS.finditer(sentence.predicate))
    if not found:
        return None
    match = rng.choice(sorted(found, key=lambda m: m.start()))
    value = match.group(0)
    if value[-1].isdigit():
        digits = [i for i, c in enumerate(value) if c.isdigit()]
        at = rng.choice(digits)
        choices = [d for d in "0123456789"[at == digits[0] :] if d != value[at]]
        changed = value[:at] + rng.choice(choices) + value[at + 1 :]
    else:
        for words in (_WEEKDAYS, _MONTHS, _COUNTS, _ORDINALS):
            lowered = [w.lower() for w in words]
            if value.lower() in lowered:
                other = rng.choice([w for w in words if w.lower() != value.lower()])
                changed = other if value[0].isupper() else other.lower()
                changed = changed.capitalize() if value[0].isupper() else changed
                break
    return sentence.said(_replaced(sentence.predicate, match.start(), match.end(), changed))


def _id_like(value: str) -> bool:
    """Account and order numbers: long runs of digits are identifiers, not amounts."""
    return len(re.sub(r"\D", "", value)) >= 5 and not value.startswith("$")


# A noun phrase's head: after a determiner or a possessive and up to two words, before a
# punctuation mark or a function word ("the pet store in town" → "store").
_NOUN = re.compile(
    r"(?:\b(?i:a|an|the|his|her|their|its|my|your|our|this|that)|'s)\s+"
    r"(?:(?!(?:is|was|are|were|be|has|have|had|do|does|did|will|can|not|very|so|too)\b)"
    r"[a-z-]+\s+)?"
    r"([a-z][a-z-]{3,})(?=\s*(?:[.,!?;:]|$)|\s+(?:of|in|to|for|at|on|with|and|or|but|is|was|"
    r"are|were|that|from|by|as|if|when|so|because|about|after|before)\b)"
)
_NOT_NOUNS = frozenset(
    _words("""
    same other next last first second third only whole most best more very much many
    such this that these those what which there here about into with from enough
    something anything nothing everything someone anyone everyone
    time times minute minutes hour hours day days week weeks month months year years
    morning afternoon evening night tonight today tomorrow moment while
    instead inside outside right left wrong better worse done came went sort kind lot
    high cheap early late bright sudden dumb single extra terrific great good
    """)
)
# Endings of adjectives and participles: "the show is funny" has no noun "funny".
_NOT_NOUN_ENDINGS = ("self", "ly", "est", "ful", "ous", "ive", "able", "ible", "ish", "less", "ed")
_PREDICATIVE = re.compile(r"\b(?:is|are|was|were|be|been|very|so|too|seems|looks) ([a-z]+)")


def _nouns(text: str, adjectives: frozenset[str] = frozenset()) -> list[re.Match[str]]:
    """Noun phrase heads of ``text``, none of ``adjectives``."""
    return [
        m
        for m in _NOUN.finditer(text)
        if m.group(1) not in _NOT_NOUNS | adjectives and not m.group(1).endswith(_NOT_NOUN_ENDINGS)
    ]


def moved_detail(sentence: Sentence) -> str | None:
    """A detail moved from the other speaker to the subject: a noun of the predicate that
    the subject's messages contain replaced by one that only the other speakers' messages
    contain ("works at a supermarket" → "works at a yard", when only the other one has it)."""
    own = [m for m in _nouns(sentence.predicate) if m.group(1) in sentence.own_words]
    adjectives = frozenset(_PREDICATIVE.findall(sentence.other_text.lower()))
    theirs = sorted(
        {m.group(1) for m in _nouns(sentence.other_text, adjectives)} - sentence.own_words
    )
    if not own or not theirs:
        return None
    rng = sentence.rng("moved_detail")
    match = rng.choice(own)
    moved = rng.choice(theirs)
    return sentence.said(_replaced(sentence.predicate, match.start(1), match.end(1), moved))


KINDS: dict[str, Corruption] = {
    "swap": swap,
    "done_for_promised": done_for_promised,
    "accept_refuse": accept_refuse,
    "negation": negation,
    "number": number,
    "moved_detail": moved_detail,
}
