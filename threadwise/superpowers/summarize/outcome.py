"""The outcome of a support chat, stated in its summary: from the ledger when the model left it out.

A summary that stops at the steps ("…and the agent asks him to test another charger") is no
use in a ticket: what the customer was left with is the point. The outcome is the last act
the agent side reported done ("I've approved a replacement charger"), else promised ("I'll
send a label"), else refused ("I can't offer a price adjustment"). When no summary sentence
restates it, that sentence of the agent's message is added, turned to the third person
("Kenji has approved a replacement charger"): the conversation's own words, so nothing the
conversation does not say.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from threadwise.superpowers.summarize.checks import Checked, CheckedSentence
from threadwise.superpowers.summarize.ledger import Entry, Ledger
from threadwise.text.speech_acts import Mood, content_words
from threadwise.text.transcript import Said, Side, Speaker

_AGENT_SIDES = (Side.AGENT, Side.BOT)
# The moods that settle a request, in the order an outcome is looked for.
_SETTLING = (Mood.DONE, Mood.PROMISED, Mood.REFUSED)
# The acts of service an outcome is made of (not "read", "check", "look", "pass on").
_SERVICE_WORDS = """
    approve refund issue cancel rebook book reserve ship send replace credit waive close resolve
    fix repair reset unlock schedule reschedule submit process escalate open add apply put
    reactivate activate extend release deliver file order change update upgrade remove block
    email mail arrange reimburse exchange return transfer offer give
"""
_SERVICE = frozenset(_SERVICE_WORDS.split())
# A restatement shares this many content words with the outcome's sentence.
_SHARED = 2
_MAX_WORDS = 30
# Words of the act's sentence that say nothing about the outcome.
_EMPTY = frozenset({"thank", "thanks", "sorry", "please", "moment", "minute", "welcome"})
# First and second person, turned to the third: (pattern, replacement with {a} the agent's
# name and {c} the customer's).
_PERSON = (
    (r"\bI've\b|\bI have\b|\bwe've\b|\bwe have\b", "{a} has"),
    (r"\bI\s+(?=just\b|also\b|already\b)", "{a} "),
    (r"\bI'm\b|\bI am\b|\bwe're\b|\bwe are\b", "{a} is"),
    (r"\bI'll\b|\bwe'll\b", "{a} will"),
    (r"\bI'd\b|\bwe'd\b", "{a} would"),
    (r"\bI\b|\bwe\b", "{a}"),
    (r"\b(?:my|our)\b", "{a}'s"),
    (r"\byou've\b|\byou have\b", "{c} has"),
    (r"\byou're\b|\byou are\b", "{c} is"),
    (r"\byou'll\b", "{c} will"),
    (r"\byour\b", "{c}'s"),
    (r"\byou\b", "{c}"),
    (r"\bus\b|\bme\b", "{a}"),
)


def state_outcome(
    checked: Checked,
    ledger: Ledger,
    messages: tuple[Said, ...],
    names: dict[Speaker, str],
    write_back: Callable[[str], str],
) -> str | None:
    """Add the outcome to ``checked`` when a support chat's summary lacks it; the sentence
    added (in prompt names), or None. ``write_back`` turns prompt names into the caller's.
    An estimate the agent side gave ("the estimated restore time is 6:00 PM today") is the
    state of a request still pending: added too when no sentence has its time."""
    act = _stated_act(checked, ledger, messages, names)
    _add(checked, act, write_back)
    estimate = _estimate(checked, messages)  # after the act's sentence, which may give the time
    _add(checked, estimate, write_back)
    return next((found[0] for found in (estimate, act) if found is not None), None)


def _add(
    checked: Checked, found: tuple[str, Said] | None, write_back: Callable[[str], str]
) -> None:
    if found is not None:
        sentence, message = found
        checked.sentences.append(CheckedSentence(write_back(sentence), (message,), sentence))


def _stated_act(
    checked: Checked, ledger: Ledger, messages: tuple[Said, ...], names: dict[Speaker, str]
) -> tuple[str, Said] | None:
    """The agent's sentence of the act that settles the chat, in the third person, and its
    message; None when there is none or a summary sentence restates it."""
    entry = _outcome(ledger)
    if entry is None or not checked.sentences:
        return None
    message = messages[entry.position]
    start = _tellable(entry.act.text, entry.act.at) or 0
    sentence = _sentence_of(message.english, entry.act.text[start:])
    if sentence is None or _restated(checked, message, sentence, names, entry.verb):
        return None
    customers = [s for s in ledger.speakers if s.side is Side.CUSTOMER]
    if not customers:
        return None
    told = " and ".join(names[c] for c in customers)
    return _third_person(sentence, names[entry.said_by], told, len(customers) > 1), message


# "The estimated restore time is 6:00 PM today", "expected delivery date: March 3".
_ESTIMATE = re.compile(
    r"\b(?:the )?(?:estimated|expected) (?:restore|restoration|repair|delivery|arrival|"
    r"resolution|completion|fix|return) (?:time|date)\b[^.!?;]*",
    re.IGNORECASE,
)


def _estimate(checked: Checked, messages: tuple[Said, ...]) -> tuple[str, Said] | None:
    """The agent side's last estimate of when a pending request is done, as a sentence, and
    its message, when it has a time or date that no summary sentence has."""
    for message in reversed(messages):
        if message.speaker.side not in _AGENT_SIDES or message.addresses_model:
            continue
        found = list(_ESTIMATE.finditer(message.english))
        if not found:
            continue
        clause = found[-1].group(0).strip()
        when = re.findall(r"\d[\d:.]*", clause)
        if not when or not checked.sentences:
            return None
        if any(all(w in s.prompt_text for w in when) for s in checked.sentences):
            return None
        return clause[0].upper() + clause[1:] + ".", message
    return None


def _outcome(ledger: Ledger) -> Entry | None:
    """The act that settles the chat: the agent side's last done, else promised, else
    refused act."""
    agents = [
        e
        for e in ledger.entries
        if e.said_by.side in _AGENT_SIDES
        and (e.doer is e.said_by or (e.doer is None and e.act.addressee))
        and e.verb in _SERVICE
        and _tellable(e.act.text, e.act.at) is not None
    ]
    for mood in _SETTLING:
        found = [e for e in agents if e.mood is mood and len(_words(e.act.text)) >= _SHARED]
        # An act with a figure, a date or an ID in it ("a hold on the March 28 due date")
        # says more about how the chat ended than a courtesy after it ("added a note").
        figured = [e for e in found if re.search(r"\d", e.act.text)]
        if figured or found:
            return (figured or found)[-1]
    return None


# A sentence that turns to the third person cleanly: "I've approved…", "We'll send…",
# "I can't refund…", opened by the speaker and naming them nowhere else ("we allow" would
# need its verb changed too), and not an apology.
_OPENS_WITH_SPEAKER = re.compile(
    r"\W*(?:(?:ok|okay|so|good|great|perfect|done|thanks|thank you|alright|all right)[,.!]?\s+)*"
    r"(?:(?:i|we)(?:'ve| have|'ll| will| can't| cannot| won't| just| also| already|'m| am|'re|"
    r" are)|you(?:'re| are|'ve been| have been))\b"
)
_SPEAKER_AGAIN = re.compile(r"\b(?:i|i'm|we|we're|my|our|me|us)\b")


def _tellable(sentence: str, at: int) -> int | None:
    """Where the clause of ``sentence`` holding the act found at ``at`` starts, when it
    turns cleanly to the third person: opened by the speaker, who is named nowhere after
    ("So you're protected, I've put a hold…" from "I've"); None if it does not."""
    if "sorry" in sentence:
        return None
    starts = [0] + [m.end() for m in re.finditer(r"[,:;]\s+", sentence) if m.end() <= at]
    start = starts[-1]
    opening = _OPENS_WITH_SPEAKER.match(sentence, start)
    if opening is None or _SPEAKER_AGAIN.search(sentence, opening.end()) is not None:
        return None
    return start


def _sentence_of(text: str, lowered: str) -> str | None:
    """The sentence of ``text`` the act was read in (``lowered``), as written."""
    at = text.lower().replace("\u2019", "'").find(lowered)
    if at < 0:
        return None
    sentence = text[at : at + len(lowered)].strip()
    if len(sentence.split()) > _MAX_WORDS:
        return None
    return sentence if sentence.endswith((".", "!")) else sentence.rstrip(",;:") + "."


def _restated(
    checked: Checked, message: Said, sentence: str, names: dict[Speaker, str], verb: str
) -> bool:
    """Does a summary sentence say what ``sentence`` (the outcome's, whose act is ``verb``)
    says: citing its message, or sharing two of its words and the act ("Julia suggests Casa
    Alfama" does not say "you're booked at Casa Alfama")?"""
    wanted = _words(sentence) - _name_words(names)
    for said in checked.sentences:
        if verb not in _words(said.prompt_text) and verb in wanted:
            continue
        if message in said.messages[:1] and len(wanted & _words(said.prompt_text)) >= 1:
            return True
        if len(wanted & _words(said.prompt_text)) >= min(_SHARED, len(wanted)):
            return True
    return False


def _words(text: str) -> frozenset[str]:
    return content_words(text) - _EMPTY


def _name_words(names: dict[Speaker, str]) -> frozenset[str]:
    return frozenset(w for name in names.values() for w in content_words(name))


def _third_person(sentence: str, agent: str, customer: str, plural: bool = False) -> str:
    """``sentence`` said by the agent, told of them: "I've approved your charger" →
    "Kenji has approved Ethan's charger"; with ``plural``, ``customer`` names several
    ("Carlos and Julia are booked")."""
    text = sentence.replace("\u2019", "'")
    text = re.sub(
        r"^\W*(?:(?:ok|okay|so|well|great|perfect|good|thanks|alright),?\s+)+", "", text, flags=re.I
    )
    for pattern, replacement in _PERSON:
        text = re.sub(
            pattern,
            replacement.format(a=agent, c=customer),
            text,
            flags=re.IGNORECASE,
        )
    if plural:
        text = re.sub(rf"\b{re.escape(customer)} (is|has)\b", _plural_verb, text)
    return text[0].upper() + text[1:] if text else text


def _plural_verb(found: re.Match[str]) -> str:
    verb = {"is": "are", "has": "have"}[found.group(1)]
    return found.group(0)[: -len(found.group(1))] + verb
