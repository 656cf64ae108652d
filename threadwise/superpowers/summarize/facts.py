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
        "ID",
        "Jan",
        "Feb",
        "Mar",
        "Apr",
        "Jun",
        "Jul",
        "Aug",
        "Sep",
        "Sept",
        "Oct",
        "Nov",
        "Dec",
        "Mon",
        "Tue",
        "Wed",
        "Thu",
        "Fri",
        "Sat",
        "Sun",
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


def _ranges(tokens: list[str]) -> list[str]:
    """Each end of a range on its own: "Feb 20-22" says 20 and 22, "4-5 AM" 4 and 5."""
    found: list[str] = []
    for token in tokens:
        ends = re.fullmatch(r"(\d{1,4})[-\u2013](\d{1,4})", token)
        found.extend(ends.groups() if ends else (token,))
    return found


def _number(text: str) -> str:
    """A number as the unit check compares it: "5:00" as "5", "15.00" as "15"."""
    text = text.replace(",", "")
    text = re.sub(r"[:.]00$", "", text)
    return re.sub(r"(\.\d*?)0+$", r"\1", text).rstrip(".")


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
    for token in _ranges(_NUMBERISH.findall(summary)):
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


_WEEKDAYS_WORDS = "monday tuesday wednesday thursday friday saturday sunday"
_WEEKDAYS = _WEEKDAYS_WORDS.split()
_MONTHS_WORDS = """
    january february march april may june july august september october november december"""
_MONTHS = _MONTHS_WORDS.split()
# The same weekdays, months and numbers as a conversation in Spanish, French, German,
# Portuguese or Italian says them (accents folded), when it has no English reading.
_DAYS_ELSEWHERE = """
    lunes lundi montag segunda lunedi | martes mardi dienstag terca martedi |
    miercoles mercredi mittwoch quarta mercoledi | jueves jeudi donnerstag quinta giovedi |
    viernes vendredi freitag sexta venerdi | sabado samedi samstag sonnabend sabato |
    domingo dimanche sonntag domenica"""
_MONTHS_ELSEWHERE = """
    enero janvier januar janeiro gennaio | febrero fevrier februar fevereiro febbraio |
    marzo mars marz marco | abril avril aprile | mayo mai maio maggio |
    junio juin juni junho giugno | julio juillet juli julho luglio | agosto aout |
    septiembre septembre setembro settembre | octubre octobre oktober outubro ottobre |
    noviembre novembre november novembro | diciembre decembre dezember dezembro dicembre"""
# Each number a summary may write as a word: its English words (cardinal, ordinal), then
# how else a conversation may say it.
_NUMBERS_TABLE = """
    2 two second twice both couple pair double dos deux zwei dois duas due doppelt |
    3 three third thrice triple tres trois drei tre | 4 four fourth cuatro quatre vier quatro
    quattro | 5 five fifth cinco cinq funf cinque | 6 six sixth seis sechs sei |
    7 seven seventh siete sept sieben sete sette | 8 eight eighth ocho huit acht oito otto |
    9 nine ninth nueve neuf neun nove | 10 ten tenth diez dix zehn dez dieci |
    11 eleven eleventh once onze elf undici | 12 twelve twelfth doce douze zwolf doze dodici
    dozen | 13 thirteen | 14 fourteen | 15 fifteen | 16 sixteen | 17 seventeen | 18 eighteen |
    19 nineteen | 20 twenty | 30 thirty | 40 forty | 50 fifty | 60 sixty | 70 seventy |
    80 eighty | 90 ninety"""


def _groups(table: str) -> list[list[str]]:
    return [group.split() for group in table.split("|")]


_DAY_WORDS = [{d, *g} for d, g in zip(_WEEKDAYS, _groups(_DAYS_ELSEWHERE), strict=True)]
_MONTH_WORDS = [{m, *g} for m, g in zip(_MONTHS, _groups(_MONTHS_ELSEWHERE), strict=True)]
# "eight" → its digits and every word for it.
_SAYINGS = {
    word: (group[0], frozenset(group[1:]))
    for group in _groups(_NUMBERS_TABLE)
    for word in group[1:3]
    if not word[0].isdigit()
}
# A weekday or a month as a summary writes it: capitalised, in full or shortened ("Feb").
_CALENDAR = re.compile(
    r"\b(?:(?P<day>(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|Mon|Tues?|Wed|Thu|Thurs|Fri|Sat|"
    r"Sun)|(?P<month>January|February|March|April|May|June|July|August|September|October|"
    r"November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec))\b\.?"
)
# A word that opens a sentence as a verb ("May I…", "March on").
_OPENING_VERBS = frozenset({"May", "March", "Sun", "Sat", "Wed", "Mar"})
_NUMBER_WORD = re.compile(rf"\b(?P<word>{'|'.join(_SAYINGS)})\b", re.IGNORECASE)
# "second" as no number: "a second time", "second-hand".
_NOT_ORDINAL = re.compile(r"[\s-]*(?:time|one|hand|thought|chance|half)\b")
# A number and the word after it ("6 months", "$15 credit", "2 p.m.").
_NUMBER_UNIT = re.compile(r"(?<![\w.,])\$?(?P<n>\d+(?:[.,:]\d+)?)\s*(?P<unit>[a-z]+|%)")
_NOT_UNITS_WORDS = "and or to of the a an in on at for by with from as is was are were it that than"
_NOT_UNITS = frozenset(_NOT_UNITS_WORDS.split())


def unsupported_words(summary: str, evidence: str) -> tuple[str, ...]:
    """The weekdays, months and number words of an English ``summary`` that ``evidence``
    (the messages and their English readings) never says, in words or in digits; and the
    numbers whose unit ("6 months") the evidence has only with another number."""
    folded = _fold(evidence)
    words = set(re.findall(r"[a-z]+", folded))
    digits = set(re.findall(r"\d+", folded))
    unsupported = [*_calendar(summary, words), *_numbers(summary, words, digits)]
    pairs = {(_number(m.group("n")), m.group("unit")) for m in _NUMBER_UNIT.finditer(folded)}
    units = {u for _, u in pairs}
    for match in _NUMBER_UNIT.finditer(summary.lower()):
        number, unit = _number(match.group("n")), match.group("unit")
        if unit in _NOT_UNITS or unit not in units or (number, unit) in pairs:
            continue
        if number in digits:
            unsupported.append(match.group(0))
    return tuple(dict.fromkeys(unsupported))


def _calendar(summary: str, words: set[str]) -> list[str]:
    """The weekdays and months of ``summary`` that none of ``words`` names."""
    found = []
    for match in _CALENDAR.finditer(summary):
        written = match.group(0).rstrip(".")
        opens = match.start() == 0 or re.search(r"[.!?]\s*$", summary[: match.start()])
        if opens and written in _OPENING_VERBS:
            continue
        names, known = (_WEEKDAYS, _DAY_WORDS) if match.group("day") else (_MONTHS, _MONTH_WORDS)
        prefix = written.lower()[:3]
        meant = [i for i, name in enumerate(names) if name.startswith(prefix)]
        if not any(known[i] & words or names[i][:3] in words for i in meant):
            found.append(written)
    return found


def _numbers(summary: str, words: set[str], digits: set[str]) -> list[str]:
    """The number words of ``summary`` that the conversation says neither in digits nor in
    any of its words for them."""
    found = []
    for match in _NUMBER_WORD.finditer(summary):
        word = match.group("word").lower()
        value, sayings = _SAYINGS[word]
        if value in digits or sayings & words:
            continue
        if word == "second" and _NOT_ORDINAL.match(summary[match.end() :]):
            continue
        found.append(match.group("word"))
    return found
