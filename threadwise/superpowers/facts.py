"""Check a draft summary against its conversation: every number, ID, date and name in the
summary must occur in the conversation.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from threadwise.text.personal_data import PLACEHOLDER

# Numbers, amounts, IDs (anything with a digit), times and dates written with digits.
_NUMBERISH = re.compile(r"[#$€£]?(?:[^\W\d_]+-)?\w*\d[\w./:-]*\w|\d")
# Capitalised words that are not names: sentence starts are skipped separately.
_NOT_NAMES = frozenset(
    [
        "I",
        "I'm",
        "I'll",
        "I've",
        "I'd",
        "The",
        "A",
        "An",
        "This",
        "That",
        "These",
        "Those",
        "He",
        "She",
        "They",
        "We",
        "You",
        "It",
        "His",
        "Her",
        "Their",
        "Our",
        "Customer",
        "Agent",
        "Operator",
        "Bot",
        "Person",
        "User",
        "Support",
        "Mr",
        "Mrs",
        "Ms",
        "Dr",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Issue",
        "Actions",
        "Outcome",
        "Follow-up",
        "Followup",
        "Summary",
        "Next",
        "Steps",
        "Resolution",
        "None",
        "After",
        "Before",
        "When",
        "Then",
        "However",
        "Also",
        "Finally",
        "Both",
        "Later",
        "Meanwhile",
        "OK",
        "Okay",
        "Yes",
        "No",
    ]
)
# Words that open a sentence without being a name: function words, and adverbs in -ly.
_SENTENCE_OPENERS_WORDS = """
    In At On By For From With Without During Due Because Since As If Although Though While
    Despite According Upon Under Over Into Onto Instead Eventually Additionally Furthermore
    Moreover Meanwhile Overall Afterwards Afterward Later Next First Second Third Lastly
    Initially Ultimately Therefore Thus Hence Still Yet Again Once Each Every Everyone
    Everybody Someone Somebody Nobody None Neither Either Some Many Most All Any Several
    Another Other Only Even Here There Now Today Tomorrow Yesterday Tonight Soon Both
    What Which Who Whom Whose Why How Where Not Please Thanks Thank Sorry Hello Hi Dear To
    Unfortunately Fortunately Eventually Finally Because Given Having Being Following
    """
_SENTENCE_OPENERS = frozenset(_SENTENCE_OPENERS_WORDS.split())
_WORD = re.compile(r"\b[A-Z][\w'\u2019-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*|^\s*[-*•]\s*|\*\*\s*)$")


@dataclass(frozen=True)
class FactCheck:
    unsupported: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.unsupported


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return text.casefold()


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def identifiers(text: str) -> list[str]:
    """The IDs in ``text``: tokens mixing capitals and digits, or of four digits or more
    (order, invoice and ticket numbers), not amounts, times, dates, years or "30-day"."""
    found = []
    for token in _NUMBERISH.findall(text):
        core = token.strip("#$€£.:-/")
        if token.startswith(("$", "€", "£")) or re.search(r"[:/.,]", core):
            continue
        digits = _digits(core)
        year = re.fullmatch(r"(?:19|20)\d\d", core) is not None
        if re.search(r"[A-Z]", core) or (len(digits) >= 4 and not year):
            found.append(core)
    return list(dict.fromkeys(found))


def check_facts(
    summary: str, evidence: str, *, names: bool = True, openers: bool = False
) -> FactCheck:
    """List the numbers/IDs (and, with ``names``, capitalised names) of ``summary`` absent
    from ``evidence``. Names are checked only on English text: other languages capitalise
    nouns (German) or translate titles. With ``openers``, a word opening a sentence is never
    taken for a name (for fragments such as "Calm and helpful.", which open with any word)."""
    folded = _fold(evidence)
    evidence_digits = {_digits(m) for m in _NUMBERISH.findall(evidence)}
    evidence_words = {w for w in re.split(r"[^\w-]+", folded) if w}
    # A redacted value's placeholder ("[PERSON_2]") stands for one value: it must be one the
    # conversation has, exactly (its digits could otherwise be found anywhere).
    unsupported = [m.group() for m in PLACEHOLDER.finditer(summary) if m.group() not in evidence]
    summary = PLACEHOLDER.sub(" ", summary)
    for token in _NUMBERISH.findall(summary):
        digits = _digits(token)
        core = token.strip("#$€£.:-/")
        if digits in evidence_digits or re.search(
            rf"(?<!\w){re.escape(_fold(core))}(?!\w)", folded
        ):
            continue
        unsupported.append(token)
    if names:
        for match in _WORD.finditer(summary):
            word = match.group(0).rstrip("'\u2019-")
            if word.endswith(("'s", "\u2019s")):
                word = word[:-2]
            if not word or word in _NOT_NAMES:
                continue
            folded_word = _fold(word)
            if _SENTENCE_START.search(summary[: match.start()]) and (
                # Capitalised because it opens a sentence: a name only if the conversation
                # does not use it as a word ("Finally", "Customer") and it is not an opener.
                openers
                or word in _SENTENCE_OPENERS
                or word.endswith(("ly", "ing"))
                or re.search(rf"(?<![\w#]){re.escape(folded_word)}(?!\w)", folded)
            ):
                continue
            if folded_word in evidence_words or any(
                part in evidence_words for part in folded_word.split("-")
            ):
                continue
            unsupported.append(word)
    return FactCheck(unsupported=tuple(dict.fromkeys(unsupported)))
