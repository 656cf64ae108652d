"""The conversation's sentences, read for acts of speech: who asked, proposed, offered,
answered yes or no, apologized or thanked, and about which words.

Each sentence of each message is kept with its speaker, its words, its message's words (a
proposal's reason and place go with it), the words of the exchange it answers ("OK. You can
change it." is about the other's last message), whether it is a question (with its mark or,
as people chat, without: "So what was the damage."), its moods (``text.speech_acts``) and
how its message opens (a yes, a no). ``Spoken.evidence`` says how strongly a speaker did an
act of a ``Kind`` about some words; ``speech_check`` holds summary clauses to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from threadwise.text.speech_acts import Mood, Reply, acts, content_words, reply, sentences
from threadwise.text.transcript import Said, Speaker


class Kind(StrEnum):
    ASK = "asks"
    PROPOSE = "proposes"
    OFFER = "offers"
    ACCEPT = "accepts"
    REFUSE = "refuses"
    APOLOGIZE = "apologizes"
    THANK = "thanks"
    GIVE = "gives"


_KIND_WORDS = {
    Kind.ASK: "ask inquire enquire request",
    Kind.PROPOSE: "suggest propose recommend advise invite urge encourage",
    Kind.OFFER: "offer volunteer",
    Kind.ACCEPT: "agree accept consent",
    Kind.REFUSE: "refuse decline reject",
    Kind.APOLOGIZE: "apologize apologise",
    Kind.THANK: "thank",
    Kind.GIVE: "provide give share supply",
}
KINDS = {word: kind for kind, words in _KIND_WORDS.items() for word in words.split()}
# A proposal put as a question: "Would you like to…", "How about…", "Shall we…".
_PROPOSING = re.compile(
    r"\b(?:would you like|do you want|would you care|how about|what about|why don't|why not|"
    r"shall we|let's|let us|you (?:\w+ly )?(?:should|could|might|must|ought to)|we could|"
    r"we should|i suggest|do you (?:wanna|want to|fancy)|are you (?:free|available)|"
    r"i recommend|i'd recommend|i would recommend|i'd suggest|i advise|my advice|try|"
    r"come (?:with|to|over|along)|join (?:me|us)|can i (?:help|get|offer|show))\b"
)
_PROPOSAL_MOODS = frozenset({Mood.SUGGESTED, Mood.ASKED})
_OFFER_MOODS = frozenset({Mood.OFFERED, Mood.PROMISED})
_OFFERING = re.compile(
    r"\b(?:(?:you'd|you would|do you|would you) (?:like|want) me to|can i|shall i|let me|"
    r"i can|i could|i'll|we can|we could|we'll|here's|here is|how about|what about)\b"
)
# A seller's or an agent's opening offer of help: "What can I do for you?", "How may I help?".
_SERVICE_OPENER = re.compile(
    r"\b(?:(?:what|how) (?:can|may|could) (?:i|we) (?:do for you|help|assist)|"
    r"(?:can|may) (?:i|we) help you|anything (?:else )?(?:i|we) can (?:do|help))\b"
)
HELP_WORDS = frozenset({"help", "assist", "assistance"})
_ASKING_MOODS = frozenset({Mood.ASKED, Mood.WANTED})
_ACCEPTING = re.compile(
    r"\b(?:yes|yeah|sure|okay|ok|all right|alright|of course|certainly|i agree|agreed|deal|"
    r"good idea|great idea|sounds (?:good|great|fine|like)|i'd love to|i would love to|"
    r"that's fine|that works|why not|i accept|no problem|that'd be|that would be (?:great|"
    r"fantastic|nice|lovely|wonderful)|count me in|i'm in|let's go|i'll take)\b"
)
_REFUSING = re.compile(
    r"(?:^\W*(?:no|nope|nah|sorry)\b|\b(?:i can't|i cannot|i won't|i don't want|i'd rather not|"
    r"i would rather not|not really|i'm afraid|no thanks|no, thanks|i refuse|i decline|"
    r"i'm not interested|i don't think so|unfortunately|(?:i )?don't feel like|not in the mood|"
    r"no way|i'm broke|can't afford|(?:maybe )?(?:another|some other|next) time|i'm busy|"
    r"not today|i'd rather|i would rather|i have to (?:work|go|meet|study)|"
    r"(?:i'm|i am|we're|we are) (?:not able|unable) to|(?:it's|that's|it is|that is) too \w+ "
    r"for (?:me|us))\b)"
)
_TOO_MUCH = re.compile(r"\btoo (?:big|small|heavy|expensive|much|late|early|far|long|short)\b")
_APOLOGY = re.compile(r"\b(?:sorry|apologi[sz]e|apologies|forgive me|my apologies|my bad)\b")
_THANKS = re.compile(r"\b(?:thanks|thank you|thank u|appreciate it|much obliged)\b")


@dataclass(frozen=True)
class SpokenSentence:
    """One sentence of a message, read for what it does."""

    speaker: Speaker
    position: int  # the message's place in the conversation
    text: str  # lower case
    words: frozenset[str]
    message: frozenset[str]  # its message's words: a proposal's reason and place go with it
    # Its message's words and those of the other speaker's message before it: what an
    # answer ("OK. You can change it.") is about.
    exchange: frozenset[str]
    question: bool
    moods: frozenset[Mood]
    answer: Reply | None  # how it opens, for the message's first sentence
    # It opens a reply to the other speaker's proposal ("Why don't you come?" "I can't.").
    replies: bool = False


def is_question(text: str) -> bool:
    """A question, with its mark or without ("So what was the damage."): people chat."""
    return text.rstrip().endswith("?") or bool(_WH_QUESTION.match(text))


# A question without its mark: a wh-word and a verb to open the sentence.
_WH_QUESTION = re.compile(
    r"\W*(?:so\s+|and\s+|but\s+)?(?:what|how|why|when|where|who|which)\s+"
    r"(?:is|are|was|were|do|does|did|can|could|would|will|should|about|happened|much|many)\b",
    re.IGNORECASE,
)


def proposes(text: str) -> bool:
    """Does a message propose something to the other speaker?"""
    lowered = text.lower().replace("\u2019", "'")
    if _PROPOSING.search(lowered) or _OFFERING.search(lowered):
        return True
    return any(a.mood in _PROPOSAL_MOODS or a.mood is Mood.OFFERED for a in acts(text))


class Spoken:
    """The sentences of a conversation's messages (those written to the model left out)."""

    def __init__(self, messages: Sequence[Said]) -> None:
        self.sentences: list[SpokenSentence] = []
        last: Said | None = None
        for position, message in enumerate(messages):
            if message.addresses_model:
                continue
            answer = reply(message.english)
            own = content_words(message.english)
            exchange = own
            proposed = False
            if last is not None and last.speaker is not message.speaker:
                exchange |= content_words(last.english)
                proposed = proposes(last.english)
            for number, text in enumerate(sentences(message.english)):
                self.sentences.append(
                    SpokenSentence(
                        message.speaker,
                        position,
                        text,
                        content_words(text),
                        own,
                        exchange,
                        is_question(text),
                        frozenset(a.mood for a in acts(text)),
                        answer if number == 0 else None,
                        proposed and number == 0,
                    )
                )
            last = message
        # The first four letters of every question's words ("decide" asks about "decision").
        self.asked = frozenset(
            w[:4] for said in self.sentences if said.question for w in said.words
        )

    def did(self, kind: Kind, speaker: Speaker) -> bool:
        """Did ``speaker`` do ``kind`` anywhere in the conversation?"""
        return any(s.speaker is speaker and self.does(kind, s) for s in self.sentences)

    def evidence(self, kind: Kind, speaker: Speaker, words: frozenset[str]) -> int:
        """How strongly ``speaker``'s messages do ``kind`` about ``words`` (0: not at all)."""
        best = 0
        for said in self.sentences:
            if said.speaker is not speaker or not self.does(kind, said):
                continue
            if kind in (Kind.APOLOGIZE, Kind.THANK):
                return 1
            context = (
                said.exchange
                if kind in (Kind.ACCEPT, Kind.REFUSE)
                else said.message
                if kind in (Kind.PROPOSE, Kind.OFFER)
                else said.words
            )
            if kind is Kind.OFFER and words & HELP_WORDS and _SERVICE_OPENER.search(said.text):
                best = max(best, min(2, len(words)))
                continue
            if not words:
                # Nothing to match but the act: only a reply to a proposal says it.
                best = max(best, 1 if kind in (Kind.ACCEPT, Kind.REFUSE) and said.replies else 0)
                continue
            best = max(best, len(words & context))
        return best

    def does(self, kind: Kind, said: SpokenSentence) -> bool:
        if kind is Kind.ASK:
            return said.question or bool(said.moods & _ASKING_MOODS)
        if kind is Kind.PROPOSE:
            return bool(said.moods & _PROPOSAL_MOODS) or bool(_PROPOSING.search(said.text))
        if kind is Kind.OFFER:
            return bool(said.moods & _OFFER_MOODS) or bool(_OFFERING.search(said.text))
        if kind is Kind.ACCEPT:
            return said.answer is Reply.ACCEPTS or (
                not said.question and bool(_ACCEPTING.search(said.text))
            )
        if kind is Kind.REFUSE:
            # "Yes, it's big enough, but it's too heavy": a yes with a but refuses too.
            return (
                said.answer is Reply.REFUSES
                or Mood.REFUSED in said.moods
                or (not said.question and bool(_REFUSING.search(said.text)))
                or (said.answer is Reply.ACCEPTS and bool(_TOO_MUCH.search(said.text)))
            )
        if kind is Kind.APOLOGIZE:
            return bool(_APOLOGY.search(said.text))
        return bool(_THANKS.search(said.text))
