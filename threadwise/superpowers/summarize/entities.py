"""The ``entities`` aspect: the IDs, amounts, dates and products a conversation names, each
copied exactly as it was written there.

IDs, amounts and dates are found by pattern in the messages; products are what the model
listed, kept only when the conversation has them word for word (its spelling is used).
"""

from __future__ import annotations

import re
from typing import Literal

from threadwise.protocol import Entity
from threadwise.superpowers.summarize.facts import identifiers
from threadwise.text.personal_data import PLACEHOLDER
from threadwise.text.transcript import Transcript

_CURRENCY = r"[$€£¥₹]|R\$|US\$|USD|EUR|GBP|CHF|BRL|dollars?|euros?|pounds?|reais|francs?"
_AMOUNT = re.compile(
    rf"(?:(?:{_CURRENCY})\s?\d[\d,.' ]*\d|(?:{_CURRENCY})\s?\d)"
    rf"|\d[\d,.' ]*\d?\s?(?:{_CURRENCY})(?![a-z])",
    re.IGNORECASE,
)
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|"
    "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|"
    "janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|"
    "Januar|Februar|März|Juni|Juli|Oktober|Dezember|"
    "janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro|"
    "gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|"
    "januari|februari|maart|mei|augustus"
)
_WEEKDAYS = (
    "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"
    "lunes|martes|miércoles|jueves|viernes|sábado|domingo|"
    "lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|"
    "Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag|"
    "segunda-feira|terça-feira|quarta-feira|quinta-feira|sexta-feira"
)
_DATE = re.compile(
    rf"\b(?:(?:{_WEEKDAYS}),?\s+)?"
    rf"(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th|\.|º)?\s+(?:de\s+)?(?:{_MONTHS})(?:\s+(?:de\s+)?\d{{4}})?)\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
    rf"|\b(?:{_WEEKDAYS})\b",
    re.IGNORECASE,
)


def entities_in(transcript: Transcript, products: str) -> list[Entity]:
    """What the messages of ``transcript`` name, in order of first mention, each once;
    ``products`` is the model's list ("a; b"), checked against the messages (not those
    written to the model: their "$500 gift card" names nothing the conversation has)."""
    said = (m.text for m in transcript.messages if not m.addresses_model)
    text = PLACEHOLDER.sub(" ", "\n".join(said))
    found: list[tuple[int, int, Entity]] = []

    def add(start: int, end: int, kind: Literal["identifier", "amount", "date", "product"]) -> None:
        if any(s <= start and end <= e for s, e, _ in found):
            return  # inside one found before ("129" of "$129.00")
        found[:] = [f for f in found if not (start <= f[0] and f[1] <= end)]
        found.append((start, end, Entity(kind=kind, text=text[start:end].strip())))

    for match in _AMOUNT.finditer(text):
        add(match.start(), match.end(), "amount")
    for match in _DATE.finditer(text):
        add(match.start(), match.end(), "date")
    for ident in identifiers(text):
        for match in re.finditer(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text):
            add(match.start(), match.end(), "identifier")
            break
    names = {s.name.casefold() for s in transcript.speakers}
    folded = text.casefold()
    for item in re.split(r"[;\n]", products):
        item = item.strip().strip(".\"'")
        if len(item) < 2 or item.casefold() in names or item.lower() in ("none", "n/a"):
            continue
        at = re.search(rf"(?<!\w){re.escape(item.casefold())}(?!\w)", folded)
        # "order 4471" is the ID found already, not a product.
        if at is not None and not any(s < at.end() and at.start() < e for s, e, _ in found):
            add(at.start(), at.end(), "product")
    found.sort(key=lambda f: f[0])
    unique: dict[str, Entity] = {}
    for _, _, entity in found:
        unique.setdefault(entity.text.casefold(), entity)
    return list(unique.values())
