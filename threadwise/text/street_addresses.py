"""Street addresses in message text, by the way they are written in en, es, fr, de and pt.

An address is a street (a house number and a street word: "221B Baker Street", "12 rue de la
Paix", "Calle Mayor 12", "Rua do Almada 77", "Hauptstraße 5", "Am Rosengarten 7") and what
follows it, comma by comma, when it reads as part of an address: a flat or floor ("Apt 4B",
"3º B", "apto 12"), a postcode and town ("28013 Madrid", "1100-053 Lisboa"), a US town,
state and ZIP ("Portland, ME 04101"), a UK town and postcode ("London NW1 6XE"). A flat
written before the street ("Flat 3, 27 Elm Grove") belongs to it too.
"""

from __future__ import annotations

import re

from threadwise.text.found import Found

_NAME = r"[A-ZÀ-ÖØ-Þ][\w'\u2019.-]*"
_EN_TYPES = (
    r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Place|Pl|Way|"
    r"Terrace|Close|Grove|Gardens|Crescent|Square|Sq|Wynd|Row|Parkway|Pkwy|Highway|Hwy|"
    r"Circle|Cir|Trail|Mews|Hill|Walk"
)
_FR_TYPES = r"rue|avenue|av\.|boulevard|bd|place|impasse|allée|chemin|quai|route|cours|square"
_ES_PT_TYPES = (
    r"Calle|C/|Avda\.|Avenida|Av\.|Paseo|Plaza|Pza\.|Camino|Carrer|Ronda|Travesía|Rua|R\.|"
    r"Travessa|Praça|Largo|Estrada|Alameda|Am|An der|Auf dem|Im"
)
_DE_SUFFIXES = r"straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad"
_PARTICLE = r"(?:de la|de l'|del|de|do|da|dos|das|du|des|d')"
_STREET = re.compile(
    "|".join(
        [
            # 221B Baker Street, 3120 W Olive St
            rf"\b\d{{1,5}}[A-Za-z]?\s+(?:[NSEW]\.?\s+)?(?:{_NAME}\s+){{1,3}}(?:{_EN_TYPES})\b\.?",
            # 8 bis boulevard Victor Hugo, 12 rue de la Paix
            rf"\b\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+(?i:{_FR_TYPES})\s+(?:{_PARTICLE}\s*)?"
            rf"{_NAME}(?:\s+(?:{_PARTICLE}\s*)?{_NAME}){{0,3}}",
            # Calle Mayor 12, Rua do Almada 77, Avda. Diagonal 455, Am Rosengarten 7
            rf"(?<![\w])(?:{_ES_PT_TYPES})\s+(?:{_PARTICLE}\s+)?{_NAME}"
            rf"(?:\s+(?:{_PARTICLE}\s+)?{_NAME}){{0,3}},?\s+(?:n[º°o]\.?\s*)?\d{{1,5}}[a-z]?\b",
            # Hauptstraße 5, Lindenweg 23a
            rf"\b[A-ZÄÖÜ][\wäöüß-]*(?:{_DE_SUFFIXES})\s+\d{{1,4}}\s?[a-z]?\b",
        ]
    )
)
_BEFORE = re.compile(r"(?:Flat|Apt\.?|Apartment|Suite|Unit)\s+\w{1,5},\s*$")
_AFTER = re.compile(
    "|".join(
        [
            # a flat, a floor, a door
            r",\s*(?:Apt\.?|Apartment|Suite|Unit|Flat|apto\.?|apt\.?|conj\.|piso|#)\s*\w{1,5}",
            r",\s*\d{1,2}\s?[º°ª]\s*(?:\d{1,2}\s?[ªº]|[A-Za-z]\b\.?|Esq\.?|Dto\.?|Dir\.?)?",
            # postcode and town: 28013 Madrid, 1100-053 Lisboa, 01310-200 São Paulo
            rf",\s*(?:\d{{5}}|\d{{4}}-\d{{3}}|\d{{5}}-\d{{3}})\s+{_NAME}(?:\s+{_NAME})?",
            # US: Portland, ME 04101
            rf",\s*{_NAME}(?:\s+{_NAME})?,\s*[A-Z]{{2}}\s+\d{{5}}(?:-\d{{4}})?",
            # UK: London NW1 6XE
            rf",\s*{_NAME}(?:\s+{_NAME})?\s+[A-Z]{{1,2}}\d[A-Z\d]?\s*\d[A-Z]{{2}}\b",
            # Brazil: São Paulo - SP, 01310-200
            rf",\s*{_NAME}(?:\s+{_NAME})?\s*-\s*[A-Z]{{2}}(?:,\s*\d{{5}}-\d{{3}})?",
        ]
    )
)


def find_addresses(text: str) -> list[Found]:
    found = []
    for street in _STREET.finditer(text):
        start, end = street.start(), street.end()
        if before := _BEFORE.search(text, 0, start):
            start = before.start()
        while after := _AFTER.match(text, end):
            end = after.end()
        found.append(Found("ADDRESS", start, end, text[start:end]))
    return found
