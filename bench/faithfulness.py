"""What can be scored of a summary's faithfulness without a reader.

Independent of the pipeline's own checks (no code shared with them): names a summary gives
that neither the conversation nor its participants have, numbers and IDs it gives that the
conversation lacks, the conversation's IDs it lost, and the support chats' key facts it kept.
Who did what and unsupported claims need a reader: ``bench/FAITHFULNESS.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_CAPITALISED = re.compile(r"(?<![\w#])[A-Z][a-z]+(?:[-'][A-Za-z]+)?")
_AFTER_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*(?:[-*•]\s+)?|\*\*\s*)$")
_NUMBERISH = re.compile(r"\d[\w.,:/-]*\d|\d")
_ID = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Z])[A-Z0-9][\w-]*[A-Z0-9]\b|\b\d{4,}\b")
# Capitalised words that are not names (days, months, the pipeline's own words).
_COMMON_WORDS = """
    I The A An This That These Those He She They We You It His Her Their Our Its There
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
    June July August September October November December Customer Agent Person Mr Mrs Ms Dr
    OK Okay Yes No After Before When Then However Also Both Later Finally Summary In At On
    By For From With During Due Because Since As If Although While Despite According Instead
    Eventually Additionally Meanwhile Overall First Next Lastly Initially Ultimately Each
    Everyone Someone Some Many Most All Neither Either Only Even Here Now Today Tomorrow Once
    Unfortunately Fortunately To What Who Which Why How Where Not Please Thanks Given Being
    """
_COMMON = frozenset(_COMMON_WORDS.split())


@dataclass(frozen=True)
class Score:
    invented_names: tuple[str, ...]
    unsupported_numbers: tuple[str, ...]
    lost_ids: tuple[str, ...]
    key_facts_kept: int
    key_facts: int

    def as_json(self) -> dict[str, Any]:
        return {
            "invented_names": list(self.invented_names),
            "unsupported_numbers": list(self.unsupported_numbers),
            "lost_ids": list(self.lost_ids),
            "key_facts_kept": self.key_facts_kept,
            "key_facts": self.key_facts,
        }


def conversation_text(body: dict[str, Any]) -> str:
    """Every message and participant of a request body, as one text."""
    parts: list[str] = []
    for conversation in body["request"]["scope"]["conversations"]:
        for participant in conversation.get("participants", []):
            parts.extend(
                str(participant.get(k) or "") for k in ("displayName", "role", "participantId")
            )
        parts.extend(m["content"] for m in conversation["messages"])
    return "\n".join(parts)


def score(summary: str, body: dict[str, Any], key_facts: list[str] | None = None) -> Score:
    source = conversation_text(body)
    lowered = source.lower()
    words = set(re.findall(r"[a-z]+", lowered))
    names = []
    for match in _CAPITALISED.finditer(summary):
        word = match.group(0).split("'")[0]
        opening = _AFTER_SENTENCE_START.search(summary[: match.start()])
        if word in _COMMON or (opening and (word.lower() in words or word.endswith("ly"))):
            continue
        # The start of a word of the conversation counts ("Web" of "WebTracker").
        if not all(re.search(rf"\b{re.escape(p.lower())}", lowered) for p in word.split("-")):
            names.append(word)
    digits = {re.sub(r"\D", "", n) for n in _NUMBERISH.findall(source)}
    numbers = [n for n in _NUMBERISH.findall(summary) if re.sub(r"\D", "", n) not in digits]
    ids = [i for i in dict.fromkeys(_ID.findall(source)) if i not in summary]
    facts = key_facts or []
    kept = sum(fact.lower() in summary.lower() for fact in facts)
    return Score(
        tuple(dict.fromkeys(names)), tuple(dict.fromkeys(numbers)), tuple(ids), kept, len(facts)
    )
