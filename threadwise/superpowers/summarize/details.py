"""Scene details a summary adds that the conversation never gives: a place, a relation, a reason.

A small model fills a scene in ("at a hotel", "his girlfriend", "due to the traffic"); the
reader cannot tell those from what was said. A place or a relation the conversation names
nowhere (in any of its forms: "mom" for "mother") is cut from the sentence with the phrase
that carries it ("at the hotel", "with his girlfriend"); a reason ("due to…", "because…")
at most half of whose words the conversation has is cut too ("due to work commitments"
when only "work" was said), and so is an item of a list of topics
none of whose words it has in any form ("their studies, work, and family" without "work"). A
sentence such a detail is the heart of ("His girlfriend calls") is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import lemminflect

from threadwise.text.speech_acts import content_words, lemma

# Words that name the same relation or place, as one group.
_RELATION_GROUPS = """
    girlfriend | boyfriend | wife | husband | spouse partner | son | daughter | child kid |
    mother mom mum mommy | father dad daddy | brother | sister | parent | friend buddy |
    colleague coworker co-worker | boss manager supervisor | neighbor neighbour | cousin |
    uncle | aunt | grandmother grandma | grandfather grandpa | fiance fiancee | roommate |
    classmate | teacher professor | student | doctor | nurse | lawyer
"""
_PLACE_GROUPS = """
    hotel motel inn | restaurant diner | airport | station | hospital clinic | office |
    school college university campus | bank | store shop | mall | supermarket | park |
    beach | cinema theater theatre movie | museum | library | gym | church | bar pub |
    cafe cafeteria coffee | home house apartment flat | kitchen | garden | party | market |
    gallery | stadium | pharmacy drugstore | post-office | zoo | concert
"""
_ARTICLE = r"(?:the|a|an|his|her|their|its|our|my|your|this|that)\s+"
_PLACE_PHRASE = r"\b(?:at|in|to|from|near|inside|outside|into)\s+{article}(?:\w+\s+)?{word}\b"
_RELATION_PHRASE = r",?\s*\b(?:with|for|to|and)\s+(?:his|her|their)\s+{word}\b(?:'s\s+\w+)?"
_REASON = re.compile(r",?\s*\b(?:due to|because of|because|since)\b[^,.;]*", re.IGNORECASE)


def _groups(text: str) -> dict[str, frozenset[str]]:
    found: dict[str, frozenset[str]] = {}
    for group in text.split("|"):
        words = frozenset(group.split())
        for word in words:
            found[word] = words
    return found


_RELATIONS = _groups(_RELATION_GROUPS)
_PLACES = _groups(_PLACE_GROUPS)


@dataclass
class Details:
    """A sentence without what the conversation does not give; None when nothing is left."""

    text: str | None
    cut: list[str] = field(default_factory=list)


def cut_details(sentence: str, conversation: frozenset[str]) -> Details:
    """``sentence`` without the places, relations and reasons absent from ``conversation``
    (its content words, as ``content_words`` gives them)."""
    result = Details(sentence)
    text = sentence
    for word in _words(text):
        group = _RELATIONS.get(word) or _PLACES.get(word)
        if group is None or group & conversation:
            continue
        phrase = _RELATION_PHRASE if word in _RELATIONS else _PLACE_PHRASE
        pattern = phrase.format(article=_ARTICLE, word=rf"{re.escape(word)}\w*")
        found = re.search(pattern, text, re.IGNORECASE)
        if found is None:
            result.text = None  # the detail is the sentence's own subject or object
            result.cut.append(word)
            return result
        text = text[: found.start()] + text[found.end() :]
        result.cut.append(found.group(0).strip(" ,"))
    for reason in list(_REASON.finditer(text)):
        words = content_words(reason.group(0)) - _LINKS
        if words and 2 * len(words & conversation) <= len(words):
            text = text.replace(reason.group(0), "", 1)
            result.cut.append(reason.group(0).strip(" ,"))
    text = _cut_topics(text, conversation, result)
    result.text = _tidy(text)
    return result


_LINKS = frozenset({"due", "because", "since"})
# A list of topics: after "about", "including", "of"... up to four items of one to three
# lower-case words ("their studies, work, and family", "optimism and caution").
_ITEM = r"[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2}"
_TOPICS = re.compile(
    rf"(?=\b(?:about|including|of|on|such as|like|discuss|discusses)\s+(?:{_ARTICLE})?"
    rf"(?P<items>{_ITEM}(?:, {_ITEM}){{0,2}},? and {_ITEM})\b)"
)


# Words no topic of a list holds.
_NOT_TOPIC = frozenset(
    {"including", "such", "as", "like", "about", "of", "with", "for", "to", "or", "the", "a"}
)


def _cut_topics(text: str, conversation: frozenset[str], result: Details) -> str:
    """``text`` without the items of its lists of topics that the conversation has in no form
    (a word of it, or one sharing its first five letters: "studies" and "studying"); a list
    keeps at least one item."""
    for found in list(_TOPICS.finditer(text)):
        items = [
            re.sub(rf"^{_ARTICLE}", "", item)
            for item in re.split(r",? and |, ", found.group("items"))
        ]
        if any(_NOT_TOPIC & set(item.split()) or not _nominal(item) for item in items):
            continue  # a phrase, not a list of topics ("the cause and sends Bobby")
        kept = [item for item in items if _mentioned(item, conversation)]
        if not kept or len(kept) == len(items):
            continue
        result.cut.extend(item for item in items if item not in kept)
        listed = kept[0] if len(kept) == 1 else f"{', '.join(kept[:-1])} and {kept[-1]}"
        text = text.replace(found.group("items"), listed, 1)
    return text


def _nominal(item: str) -> bool:
    """Can every word of ``item`` be a noun or an adjective ("repair costs", not "sends")?"""
    return all(
        not readings or readings.keys() & {"NOUN", "ADJ", "PROPN"}
        for readings in (lemminflect.getAllLemmas(word) for word in item.split())
    )


def _mentioned(item: str, conversation: frozenset[str]) -> bool:
    """Does the conversation have the topic: its head (last) word in some form ("repair
    costs" needs "costs", not only "repaired")?"""
    words = content_words(item)
    if not words:
        return True
    head = content_words(item.split()[-1])
    return any(
        w in conversation or any(c.startswith(w[:5]) for c in conversation) for w in (head or words)
    )


def _words(text: str) -> list[str]:
    return [lemma(w) for w in re.findall(r"[a-z][a-z-]*", text.lower())]


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,.;!?])", r"\1", text)
    text = re.sub(r",\s*([.!?])$", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()
