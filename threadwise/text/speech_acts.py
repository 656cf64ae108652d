"""What a sentence of a message does: asks, offers, suggests, promises, reports done, states.

English only (other languages are read through their English readings). Rules, not a model:
each form below is one people rarely use for anything else, so an act found is usually right
and an act missed is simply unknown. What an act is about is its verb's lemma ("sent" →
"send") and the content words after it.

- ``ASKED``: the speaker asks the other to do it ("Can you send…", "Please send…").
- ``WANTED``: the speaker wants it for themselves ("I'd like to book…", "Can I pay…").
- ``OFFERED``: the speaker offers to do it ("I can send…", "Shall I…", "Want me to…").
- ``SUGGESTED``: the speaker proposes that the other, or both, do it ("You should…",
  "Why don't you…", "Let's…", "How about…").
- ``PROMISED``: the speaker will do it ("I'll…", "I'm going to…", "Let me…").
- ``DONE``: reported as done ("I've sent…", "I sent…", "Your order has been shipped",
  "You charged me twice").
- ``REFUSED``: the speaker will not or cannot do it ("I can't come", "We won't refund…").
- ``STATED``: how the speaker (or the other) is ("I'm bored", "You look tired").

A message's opening may also answer what the other person asked or proposed: ``reply``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

import lemminflect


class Mood(StrEnum):
    ASKED = "asked"
    WANTED = "wanted"
    OFFERED = "offered"
    SUGGESTED = "suggested"
    PROMISED = "promised"
    DONE = "done"
    REFUSED = "refused"
    STATED = "stated"


class Doer(StrEnum):
    """Who does the act, seen from the speaker."""

    SPEAKER = "speaker"
    OTHER = "other"
    BOTH = "both"
    NOBODY = "nobody"  # a passive ("has been shipped"): done, by whoever


class Reply(StrEnum):
    ACCEPTS = "accepts"
    REFUSES = "refuses"
    HANDS_OVER = "hands over"  # "Here you are.": what was asked for is given, paid, done


@dataclass(frozen=True)
class Act:
    mood: Mood
    doer: Doer
    verb: str  # the lemma ("send"); for STATED, the state's word ("bored")
    words: frozenset[str]  # content words of what follows the verb, lower case
    text: str  # the sentence it was found in
    # A passive about the other person's things ("your flight was cancelled"): whoever did
    # it, not the one it is told to.
    addressee: bool = False
    # A passive about the speaker's own things ("my flight got cancelled"): not by them.
    own: bool = False
    at: int = 0  # where in ``text`` the act's form starts


# A message longer than this is read only in its first part: acts are in short sentences.
_MAX_SENTENCE = 400
_MAX_SENTENCES = 40

_V = r"(?P<v>[a-z]+)"
# Acts of service said in the progressive as they are done ("I'm closing…"), as stems.
_SERVICE = (
    "clos|process|send|issu|refund|cancell?|transferr|approv|add|apply|book|escalat|open|"
    "ship|releas|waiv|credit|upgrad|reset|replac|reactivat|activat|unlock|block|remov|updat|"
    "reschedul|mov|extend|arrang|schedul|submitt|fil|reimburs|reserv|rebook|emai?l|mail"
)
_ADVERB = r"(?:(?:just|already|also|now|still|really|definitely|certainly|probably|finally|"
_ADVERB += r"actually|then|gladly|quickly|personally|immediately|first|right away)\s+)?"
# "I'll just go and check it": the act is the checking.
_ADVERB += r"(?:(?:go|come|run|pop) (?:and )?(?=(?!to\b|and\b)[a-z]+))?"
_I = r"(?:i|we)"
_FORMS: tuple[tuple[Mood, Doer, str], ...] = (
    # Refusals first: "I can't come" is not an offer to come.
    (
        Mood.REFUSED,
        Doer.SPEAKER,
        rf"\b{_I} (?!(?:can't|cannot|couldn't) (?:wait|believe|thank|"
        rf"agree|complain|imagine|stand|help)\b)(?:can't|cannot|can not|won't|will not|couldn't|"
        rf"could not|don't want to|do not want to|refuse to|am not going to|'m not going to) "
        rf"{_ADVERB}{_V}",
    ),
    # "I'm not able to refund this fee", "we're unable to offer a voucher".
    (
        Mood.REFUSED,
        Doer.SPEAKER,
        rf"\b(?:i'm|i am|we're|we are) (?:not able|unable) to {_ADVERB}{_V}",
    ),
    (
        Mood.REFUSED,
        Doer.OTHER,
        r"\byou (?:can't|cannot|can not|mustn't|shouldn't|don't have to"
        rf"|needn't) {_ADVERB}{_V}",
    ),
    (Mood.OFFERED, Doer.SPEAKER, rf"\b(?:do|would) you (?:want|like) me to {_ADVERB}{_V}"),
    (Mood.OFFERED, Doer.SPEAKER, rf"\b(?:want|need) me to {_ADVERB}{_V}"),
    (Mood.OFFERED, Doer.SPEAKER, rf"\b(?:shall|should) {_I} {_ADVERB}{_V}"),
    (
        Mood.OFFERED,
        Doer.SPEAKER,
        rf"\b(?:can|could|may) {_I} (?=help|assist|get you|bring|"
        rf"offer|show|send you|give you|interest){_V}",
    ),
    (
        Mood.OFFERED,
        Doer.SPEAKER,
        rf"\b{_I}(?:'d| would) be (?:happy|glad|pleased|delighted) to "
        rf"{_ADVERB}{_V}",
    ),
    (Mood.OFFERED, Doer.SPEAKER, rf"\b{_I} (?:can|could|may) {_ADVERB}{_V}"),
    (Mood.OFFERED, Doer.SPEAKER, rf"\b{_I} (?:offer|volunteer) to {_V}"),
    (
        Mood.PROMISED,
        Doer.SPEAKER,
        rf"\b{_I}(?:'ll| will| shall|'m going to| am going to|"
        rf"'re going to| are going to|'m gonna| am gonna| promise to) {_ADVERB}{_V}",
    ),
    (Mood.PROMISED, Doer.SPEAKER, rf"\blet me {_ADVERB}{_V}"),
    (Mood.WANTED, Doer.SPEAKER, rf"\b{_I}(?:'d| would) (?:like|love|prefer) to {_ADVERB}{_V}"),
    (
        Mood.WANTED,
        Doer.SPEAKER,
        rf"\b{_I} (?:want|need|wish|hope|plan|intend|have|'ve got) "
        rf"to {_ADVERB}{_V}",
    ),
    (
        Mood.WANTED,
        Doer.SPEAKER,
        rf"\b{_I}(?:'m| am|'re| are) (?:looking|trying|hoping|planning"
        rf"|going|calling|writing) to {_V}",
    ),
    (Mood.WANTED, Doer.SPEAKER, rf"\b(?:can|could|may) {_I} (?:please )?{_V}"),
    (Mood.ASKED, Doer.OTHER, rf"\b(?:can|could|would|will) you (?:please )?{_ADVERB}{_V}"),
    (Mood.ASKED, Doer.OTHER, rf"\b{_I} (?:need|want|'d like|would like) you to {_ADVERB}{_V}"),
    (Mood.ASKED, Doer.OTHER, r"\bwould you mind (?P<v>[a-z]+ing)"),
    (
        Mood.ASKED,
        Doer.OTHER,
        rf"^(?:\W*(?:so|ok|okay|and|now|then|sir|madam),?\s+)?(?:please|"
        rf"kindly),?\s+{_V}",
    ),
    (Mood.SUGGESTED, Doer.BOTH, rf"\bwhy (?:don't|do not) we {_V}"),
    (Mood.SUGGESTED, Doer.OTHER, rf"\bwhy (?:don't you|do you not|not) {_V}"),
    (
        Mood.SUGGESTED,
        Doer.BOTH,
        rf"\b(?:let's|let us|shall we|we (?:should|could|can|might|"
        rf"ought to|'d better|had better)) {_ADVERB}{_V}",
    ),
    (
        Mood.SUGGESTED,
        Doer.OTHER,
        rf"\byou (?:should|could|might|may want to|need to|have to|"
        rf"must|'d better|had better|ought to|might want to|can) {_ADVERB}{_V}",
    ),
    (Mood.SUGGESTED, Doer.OTHER, rf"\b(?:would|do) you (?:like|want|care) to {_V}"),
    (
        Mood.SUGGESTED,
        Doer.OTHER,
        rf"\b{_I} (?:suggest|recommend|advise) (?:that )?(?:you )?"
        rf"{_V}",
    ),
    (Mood.SUGGESTED, Doer.BOTH, r"\b(?:how|what) about (?P<v>[a-z]+ing)\b"),
    (Mood.DONE, Doer.SPEAKER, rf"\b{_I}(?:'ve| have| had) {_ADVERB}(?:been able to )?{_V}"),
    # "I'm closing the ticket", "we're refunding it": a service act being done as it is said.
    (
        Mood.DONE,
        Doer.SPEAKER,
        rf"\b{_I}(?:'m| am|'re| are) {_ADVERB}(?P<v>(?:{_SERVICE})ing)\b",
    ),
    (Mood.DONE, Doer.OTHER, rf"\byou(?:'ve| have| had) {_ADVERB}{_V}"),
    (
        Mood.DONE,
        Doer.NOBODY,
        rf"\b(?:it|this|that|they|everything|(?:your|my) [\w-]+(?: [\w-]+){{0,2}}|the "
        rf"[a-z]+(?: [a-z]+)?)(?:'s| is| was| has| have| had| were| are| got| get)? (?:now "
        rf"|already |just "
        rf"|successfully |finally |been |all )*(?:been )?{_V}",
    ),
    # "You're booked at Casa Alfama", "you've been refunded": a service done for the one told.
    (
        Mood.DONE,
        Doer.NOBODY,
        rf"\byou(?:'re| are|'ve been| have been) (?:now |all |already )?"
        rf"(?P<v>(?:{_SERVICE})[a-z]*)\b",
    ),
    (
        Mood.STATED,
        Doer.SPEAKER,
        rf"\b(?:i'm|i am|i was|i feel|i felt|i get|i got|i've been|i "
        rf"have been) (?:so |very |really |a bit |a little |quite |too |kind of |pretty |getting "
        rf"|becoming |not )?{_V}",
    ),
    (
        Mood.STATED,
        Doer.OTHER,
        rf"\b(?:you're|you are|you were|you look|you seem|you sound|you feel|you become|you "
        rf"became|you've become|you get|you got|you're getting) (?:so |very |really |a bit |a "
        rf"little |quite |too |kind of |pretty |not |more and more |more |even more )?{_V}",
    ),
    (Mood.DONE, Doer.SPEAKER, rf"\b{_I} {_ADVERB}{_V}"),
    # "Just sent it.", "Uploaded.": a past form opening the sentence, its subject the speaker.
    (Mood.DONE, Doer.SPEAKER, rf"^(?:(?:ok|okay|right|there),?\s+)?(?:just |already |now )?{_V}\b"),
    (Mood.DONE, Doer.OTHER, rf"\byou {_ADVERB}{_V}"),
)
_COMPILED = tuple((mood, doer, re.compile(form)) for mood, doer, form in _FORMS)

# Words after "I'm" that are not a state ("I'm sorry" is; "I'm going" is not).
_NOT_STATES_WORDS = """
    a an the not going gonna trying looking calling writing here there afraid glad happy
    sure just also really so very still in on at with from about to for sorry"""
_NOT_STATES = frozenset(_NOT_STATES_WORDS.split())
# "done" as the verb: a past participle the passive form needs.
_WORD_VERBS = frozenset({"do", "be", "have", "get", "go", "make"})
_FUNCTION_WORDS = """
    a an the and or but so if then than that this these those to of in on at by for with
    from about as into is are was were be been am do does did have has had will would shall
    should can could may might must not no it its he she they them their his her him we us
    our you your i me my up out please just also now sir madam ma'am"""
_FUNCTION = frozenset(_FUNCTION_WORDS.split())

_ACCEPTS = re.compile(
    r"^\W*(?!(?:good|fine|great) (?:morning|afternoon|evening|night|day|bye|thanks)\b)"
    r"(?:yes|yeah|yep|yup|sure|ok|okay|o\.k\.|all right|alright|fine|great|good|perfect|of "
    r"course|certainly|absolutely|definitely|deal|done|sounds (?:good|great|fine|perfect|lovely|"
    r"like a (?:plan|good idea))|that (?:sounds|would be|works|'d be)|that's (?:fine|great|perfect"
    r"|good|a good idea|a deal|ok|okay)|good idea|great idea|why not|i'd love to|i would love to|"
    r"i agree|agreed|no problem|with pleasure|i'll take it|let's do (?:it|that)|please do|go "
    r"ahead|i accept|i'd like that|i'm in|count me in|(?:how|why) (?:can|could|would) i "
    r"(?:miss|refuse|resist|say no to) (?:it|that|this)|i (?:wouldn't|would not) miss it)\b"
)
_REFUSES = re.compile(
    r"^\W*(?:no(?! problem| worries| doubt| wonder)\b|nope|nah|not really|not now|"
    r"i (?:can't|cannot)(?! (?:wait|believe|thank|agree|complain|imagine|help))|"
    r"i won't|i don't think so|i'd rather not|i would rather not|i'm afraid not|i'm not "
    r"(?:interested|sure)|never mind|i don't want|sorry,? (?:but )?(?:i|we) (?:can't|cannot|"
    r"won't)|unfortunately|i'm afraid (?:i|we) (?:can't|cannot|won't|don't)|that's too (?:much|"
    r"expensive|late|early)|i decline|i refuse)\b"
)
_HANDS_OVER = re.compile(
    r"^\W*(?:(?:ok|okay|sure|yes|right|fine|great|good),?\s+)?(?:here you are|here you go|here it "
    r"is|here they are|there you (?:are|go)|all done|done|all set|it's done|that's done)\b"
)
_LATER = re.compile(
    r"\b(?:tomorrow|tonight|later|soon|next|on (?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"in (?:a|an|\d+|one|two|three) \w+|within|by (?:the end|friday|monday|tomorrow))\b"
)
_CLAUSE_END = re.compile(r",\s*(?:but|and|so|because|though|although|or)\b|;|\s(?:but|because)\s")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """``text`` in sentences, lower case, apostrophes made plain; bounded."""
    plain = text[: _MAX_SENTENCE * _MAX_SENTENCES].replace("\u2019", "'").lower()
    found = [s.strip() for s in _SENTENCE.split(plain) if s.strip()]
    return [s[:_MAX_SENTENCE] for s in found[:_MAX_SENTENCES]]


def acts(text: str) -> list[Act]:
    """The acts of a message's ``text`` (English), in order."""
    found: list[Act] = []
    for sentence in sentences(text):
        taken: list[tuple[int, int]] = []
        for mood, doer, pattern in _COMPILED:
            for match in pattern.finditer(sentence):
                start = match.start()
                if any(a <= start < b for a, b in taken):
                    continue
                act = _act(mood, doer, match, sentence)
                if act is not None:
                    taken.append((start, match.end()))
                    found.append(act)
    return found


def reply(text: str) -> Reply | None:
    """Whether ``text`` opens by accepting or refusing what the other person said last."""
    opening = text[:200].replace("\u2019", "'").lower()
    if _HANDS_OVER.match(opening):
        return Reply.HANDS_OVER
    if _REFUSES.match(opening):
        return Reply.REFUSES
    if _ACCEPTS.match(opening):
        return Reply.ACCEPTS
    return None


def content_words(text: str) -> frozenset[str]:
    """The lemmas of ``text``'s content words, lower case."""
    words = re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower())
    return frozenset(lemma(w) for w in words if w not in _FUNCTION and len(w) > 2)


@cache
def lemma(word: str) -> str:
    """The word's verb lemma if it is a verb form, else its noun lemma, else itself."""
    word = word.lower().removesuffix("'s")
    for pos in ("VERB", "NOUN"):
        found = lemminflect.getLemma(word, upos=pos, lemmatize_oov=False)
        if found:
            return str(found[0])
    rest = _unprefixed(word)
    return word if rest == word else word[: -len(rest)] + lemma(rest)


@cache
def is_past(word: str) -> bool:
    """Is ``word`` a verb's past tense or participle ("sent", "called"), not its base?"""
    word = _unprefixed(word)
    for form in lemminflect.getAllLemmas(word, upos="VERB").get("VERB", ()):
        if form != word and word in _inflections(str(form)):
            return True
    return False


@cache
def is_verb(word: str) -> bool:
    return bool(lemminflect.getAllLemmas(_unprefixed(word), upos="VERB"))


@cache
def _participle(word: str) -> bool:
    """Is ``word`` a past participle, even one like its base ("put", "set", "cut")?"""
    word = _unprefixed(word)
    forms = lemminflect.getAllLemmas(word, upos="VERB").get("VERB", ())
    return any(word in lemminflect.getInflection(str(f), tag="VBN") for f in forms)


# Prefixes that make a verb the dictionary lacks of one it has: "rebooked", "unfreezing".
_VERB_PREFIXES = ("re", "un", "pre", "de")


@cache
def _unprefixed(word: str) -> str:
    """``word`` without a prefix when only its rest is a verb the dictionary knows
    ("rebooked" is read as "booked"), else ``word``."""
    if lemminflect.getAllLemmas(word):
        return word
    for prefix in _VERB_PREFIXES:
        rest = word.removeprefix(prefix).removeprefix("-")
        if rest != word and len(rest) >= 3 and lemminflect.getAllLemmas(rest, upos="VERB"):
            return rest
    return word


@cache
def _inflections(base: str) -> frozenset[str]:
    forms: set[str] = set()
    for tag in ("VBD", "VBN"):
        forms.update(lemminflect.getInflection(base, tag=tag))
    return frozenset(forms)


def _act(mood: Mood, doer: Doer, match: re.Match[str], sentence: str) -> Act | None:
    word = match.group("v")
    # What the act is about ends with its clause: "I can't confirm it, but I've added…".
    rest = _CLAUSE_END.split(sentence[match.end() :], maxsplit=1)[0]
    if mood is Mood.STATED:
        if word in _NOT_STATES or (is_verb(word) and word.endswith("ing")):
            return None
        return Act(mood, doer, word, frozenset(), sentence)
    perfect = mood is Mood.DONE and re.search(r"(?:'ve|have|had)\s", match.group(0)) is not None
    progressive = (
        mood is Mood.DONE
        and word.endswith("ing")
        and re.search(r"(?:'m|am|'re|are)\s", match.group(0)) is not None
    )
    if mood is Mood.DONE and not (is_past(word) or progressive or (perfect and _participle(word))):
        # "I sent", "I've sent", "it was shipped": a past form; "I think", "you know" are not.
        return None
    if not is_verb(word) or (word in _FUNCTION and word not in _WORD_VERBS):
        return None
    verb = lemma(word)
    if mood is Mood.DONE and verb in _MENTAL:
        return None
    if progressive and _LATER.search(rest):
        mood = Mood.PROMISED  # "we're sending a technician tomorrow"
    yours = doer is Doer.NOBODY and re.match(r"you(?:r |'| )", match.group(0)) is not None
    own = doer is Doer.NOBODY and match.group(0).startswith("my ")
    return Act(mood, doer, verb, content_words(rest), sentence, yours, own, match.start())


# Verbs of thinking and saying: "I thought", "I said" report no act done for anyone.
_MENTAL_WORDS = """
    think know believe guess suppose mean say tell hear see forget remember wonder hope
    wish like love want need feel understand notice realize ask be have do get"""
_MENTAL = frozenset(_MENTAL_WORDS.split())
