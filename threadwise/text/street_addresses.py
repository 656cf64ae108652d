"""Street addresses in message text, by the way they are written in en, es, fr, de and pt.

An address is a street and the parts written around it, comma by comma, that read as part of
an address. A street is a house number and a street word:

- number first: "221B Baker Street", "3120 W Olive St", "7/22 Bellbird St" (Australian
  unit/number), "12 rue de la Paix", "8 bis boulevard Victor Hugo";
- number last: "Calle Mayor 12", "Avda. de la Constitución 112", "Rua do Almada 77",
  "Calle Mayor s/n", German compounds and separate words ("Hauptstraße 5",
  "Karl-Marx-Allee 3", "Grünberger Str. 61") and prepositions ("Am Rosengarten 7").

Before a street, each ending in a comma: a flat or a building ("Flat 3", "Bât. B",
"Pemberton House", "3 Pemberton Court"); a street right after another joins it. After a
street, with a comma or a space: a flat, floor or door ("Apt 4B", "#3F", "Suite 300",
"3º izq", "2º Esq.", "3rd floor"); with a comma: a floor word ("bajo B", "ático") or a
place line — a postcode and town ("28013 Madrid", "1100-053 Lisboa", "1010 Wien",
"1012 AB Amsterdam"), a US or Canadian town, state and ZIP ("Chicago IL 60613",
"Toronto, ON M5V 2T6"), an Australian suburb, state and postcode ("Fitzroy VIC 3065"), a UK
town and postcode ("Bath BA1 2LF"), Irish lines ("Dublin 9", "Co. Cork", the Eircode
"D09 K2W7"), Brazil's "São Paulo - SP, 01310-200". A locality line ("Drumcondra") is taken
only when a place line follows it: a capitalized word after a comma is not an address.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from threadwise.text.found import Found

_NAME = r"[A-ZÀ-ÖØ-Þ][\w'\u2019.-]*"
_PARTICLE = r"(?:de la|de l'|del|de|do|da|dos|das|du|des|d')"

# Streets.
_EN_TYPES = (
    r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Place|Pl|Way|"
    r"Terrace|Tce|Ter|Close|Grove|Gardens|Crescent|Cres|Square|Sq|Wynd|Row|Parkway|Pkwy|"
    r"Highway|Hwy|Circle|Cir|Trail|Mews|Hill|Walk|Parade|Pde|Esplanade|Alley"
)
_FR_TYPES = (
    r"rue|avenue|av\.|boulevard|bd|place|impasse|allée|chemin|quai|route|cours|square|"
    r"passage|esplanade|promenade|villa|cité|hameau"
)
_ES_PT_TYPES = (
    r"Calle|C/|Avda\.|Avenida|Av\.|Paseo|Plaza|Pza\.|Camino|Carrer|Ronda|Travesía|Rua|R\.|"
    r"Travessa|Praça|Largo|Estrada|Alameda"
)
_DE_SUFFIXES = r"straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad"
_DE_TYPES = r"Straße|Strasse|Str\.|Weg|Gasse|Platz|Allee|Ring|Damm|Ufer|Chaussee|Markt"
_DE_WORD = r"[A-ZÄÖÜ][a-zäöüß]+"
_DE_PREPOSITIONS = r"Am|An der|An den|Auf dem|Auf der|Im|In der|Unter den|Zum|Zur"
# "Am Montag 14 Uhr", "Im Januar 2024": a date is written like a street after a preposition.
_DE_TIMES = (
    r"Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag|Wochenende|Januar|Februar|"
    r"März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|Jahr|Monat|Ende|"
    r"Anfang|Moment"
)
# A house number after the street: 12, 23a, 12-14, 5/1; not a time, a count or an amount.
_DE_NUMBER = (
    r"\d{1,4}(?:[-/]\d{1,4})?(?:\s?[a-z]\b)?"
    r"(?!\s*(?:Uhr|Tagen?|Wochen|Monaten?|Jahren?|Stunden|Minuten|[Mm]al|Stück|Euro|EUR|"
    r"Prozent|€|%)(?!\w))"
)
# One word: Hauptstraße, Goethestr., Karl-Marx-Allee. A few words before the last: tried from
# each word of a long hyphenated chain, the rest of the chain would be read again each time.
_DE_COMPOUND = rf"(?:{_DE_WORD}-){{0,4}}(?:{_DE_WORD}(?:{_DE_SUFFIXES})|{_DE_WORD}-(?:{_DE_TYPES}))"
# Separate words after a place's adjective in -er: Grünberger Str., Große Hamburger Straße.
_DE_SEPARATE = (
    r"(?:(?:Alte|Neue|Große|Kleine|Lange|Hohe|Obere|Untere)[rs]?\s+)?"
    r"(?!(?:Aber|Oder|Unser|Jeder|Wieder|Immer|Erster|Letzter)\b)"
    rf"[A-ZÄÖÜ][a-zäöüß]{{2,}}er\s+(?:{_DE_TYPES})"
)
_STREET = re.compile(
    "|".join(
        [
            # 221B Baker Street, 3120 W Olive St, 7/22 Bellbird St, 1200 Main St NW
            rf"\b(?:\d{{1,4}}[A-Za-z]?/)?\d{{1,5}}[A-Za-z]?\s+(?:(?:[NSEW]|NE|NW|SE|SW)\.?\s+)?"
            rf"(?:{_NAME}\s+){{1,3}}(?:{_EN_TYPES})\b\.?(?:\s+(?:NE|NW|SE|SW)\b|\s+[NSEW](?=,))?",
            # 8 bis boulevard Victor Hugo, 12 rue de la Paix
            rf"\b\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+(?i:{_FR_TYPES})\s+(?:{_PARTICLE}\s*)?"
            rf"{_NAME}(?:\s+(?:{_PARTICLE}\s*)?{_NAME}){{0,3}}",
            # Calle Mayor 12, Rua do Almada 77, Avda. Diagonal 455, Calle Mayor s/n
            rf"(?<![\w])(?:{_ES_PT_TYPES})\s+(?:{_PARTICLE}\s+)?{_NAME}"
            rf"(?:\s+(?:{_PARTICLE}\s+)?{_NAME}){{0,3}},?\s+"
            rf"(?:(?:n[º°o]\.?\s*)?\d{{1,5}}[a-z]?\b|s/n\b)",
            # Hauptstraße 5, Karl-Marx-Allee 3, Grünberger Str. 61, Große Hamburger Straße 3
            rf"\b(?:{_DE_COMPOUND}|{_DE_SEPARATE})\s*{_DE_NUMBER}",
            # Am Rosengarten 7, An der Alster 12
            rf"\b(?:{_DE_PREPOSITIONS})\s+(?!(?:{_DE_TIMES})\b){_DE_WORD}(?:[\s-]{_DE_WORD})?"
            rf"\s+{_DE_NUMBER}",
        ]
    )
)

# Flats, floors and doors: a word and a designator with a digit or a single capital letter.
_DESIGNATOR = r"(?:(?=\w{0,4}\d)\w{1,5}|[A-Z])\b"
_UNIT_WORDS = (
    r"Flat|Apt|Apartment|Suite|Ste|Unit|Level|Floor|Fl|Block|Shop|Room|Rm|"
    r"Appt|Appartement|Bât|Bâtiment|Escalier|Esc|Étage|Porte|"
    r"piso|puerta|pta|escalera|planta|portal|bloque|local|"
    r"apto|ap|conj|sala|bloco|loja|lote|"
    r"Wohnung|Whg|Etage|Aufgang"
)
_UNIT = rf"(?:(?i:{_UNIT_WORDS})\b\.?\s*|#\s?){_DESIGNATOR}"
# Spanish and Portuguese floors: 3º B, 5º 2ª, 3º izq, 2º Esq., 4º andar; other floors.
_SIDE = (
    r"\d{1,2}\s?[ªº]|izq(?:uierda|da)?\.?|izda\.?|d(?:e)?r(?:e)?cha\.?|dcha\.?|der\.?|"
    r"centro|ctro\.?|int(?:erior)?\.?|ext(?:erior)?\.?|esq\.?|dto\.?|dir\.?|frente|fte\.?|"
    r"andar"
)
_FLOOR = (
    rf"\d{{1,2}}\s?\.?[º°ª](?:[\s-]*(?:(?i:{_SIDE})(?!\w)|[A-Za-z]\b\.?))?|"
    r"\d{1,2}(?:st|nd|rd|th)\s+(?i:floor)\b|"
    r"\d{1,2}(?:e|ème|er|re)\s+étage\b|\d{1,2}\.\s?(?:Stock|OG|Etage)\b"
)
_FLOOR_WORD = (
    rf"(?i:bajos?|ático|atico|entresuelo|entlo\.?|principal|pral\.?|sótano|r/c|cave)"
    rf"(?:\s+(?:(?i:{_SIDE})(?!\w)|[A-Z0-9]\b))?"
)

# Place lines.
_TOWN_WORD = r"[A-ZÀ-ÖØ-Þ][\w'\u2019-]*"  # no dot: "Madrid." ends a sentence
_TOWN = (
    rf"(?:(?:St|Ste|Mt|Ft)\.?\s)?{_TOWN_WORD}"
    rf"(?:[ ](?:(?:am|an der|de|del|de la|sur|en|do|da|dos)[ ])?(?!Cedex\b){_TOWN_WORD}){{0,2}}"
)
_US_STATES = (
    r"AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|"
    r"NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR"
)
_CA_PROVINCES = r"AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT"
_AU_STATES = r"NSW|VIC|QLD|WA|SA|TAS|ACT|NT"
_BR_STATES = r"AC|AL|AP|AM|BA|CE|DF|ES|GO|MA|MT|MS|MG|PA|PB|PR|PE|PI|RJ|RN|RS|RO|RR|SC|SP|SE|TO"
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b"
_EIRCODE = r"(?:[A-Z]\d{2}|D6W)\s?[A-Z0-9]{4}\b"
_PLACE = "|".join(
    [
        # 28013 Madrid, D-10115 Berlin, 1100-053 Lisboa, 01310-200 São Paulo, 1010 Wien,
        # 1012 AB Amsterdam, 75008 Paris Cedex 08
        rf"(?:[A-Z]{{1,2}}-)?(?:\d{{5}}(?:-\d{{3}})?|\d{{4}}(?:-\d{{3}}|[ ]?[A-Z]{{2}}\b)?)"
        rf"\s+{_TOWN}(?:\s+Cedex(?:\s+\d{{1,2}})?)?",
        rf"{_TOWN},?\s+(?:{_US_STATES})\s+\d{{5}}(?:-\d{{4}})?\b",
        rf"{_TOWN},?\s+(?:{_CA_PROVINCES})\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d\b",
        rf"{_TOWN},?\s+(?:{_AU_STATES})\s+\d{{4}}\b",
        rf"(?:{_TOWN},?\s+)?{_UK_POSTCODE}",
        rf"(?:Dublin\s+\d{{1,2}}[wW]?\b|(?:Co\.|County)\s+{_TOWN_WORD})(?:,?\s+{_EIRCODE})?",
        rf"(?:{_TOWN}\s+)?{_EIRCODE}",
        rf"{_TOWN}\s*[-/]\s*(?:{_BR_STATES})\b(?:,?\s*\d{{5}}-\d{{3}})?",
        r"CEP:?\s*\d{5}-\d{3}",
    ]
)
_AFTER = re.compile(
    rf"(?:,\s*|\s+)(?:{_UNIT}|{_FLOOR})|,\s*{_FLOOR_WORD}|"
    # a locality line only when a place line follows: "Drumcondra, Dublin 9"
    rf",\s*(?:{_TOWN},\s*)?(?:{_PLACE})"
)

# Lines before a street: a flat, or a building by its name.
_BUILDING = (
    rf"(?:\d{{1,4}}[A-Za-z]?\s+)?(?:{_NAME}\s+){{1,3}}"
    r"(?:House|Court|Building|Buildings|Tower|Towers|Mansions|Lodge|Cottage|Cottages|Hall|"
    r"Block|Apartments|Chambers|Centre|Center|Heights|Wharf)|"
    r"(?:Résidence|Residencia|Residencial|Edificio|Edifício|Urbanización|Urb\.|Condomínio|"
    rf"Torre)\s+(?:(?:{_PARTICLE}|les|le|la|el|los|las|os|as)\s+)?{_NAME}(?:\s+{_NAME}){{0,2}}"
)
_BEFORE = re.compile(rf"(?<![\w])(?:{_UNIT}|{_BUILDING}),\s*$")
_LINE_BEFORE_MAX = 80
_JOIN = re.compile(r",\s*")


def find_addresses(text: str) -> list[Found]:
    lines = _Lines(text)
    spans = [lines.extended(street.start(), street.end()) for street in _STREET.finditer(text)]
    return [Found("ADDRESS", start, end, text[start:end]) for start, end in _joined(text, spans)]


class _Lines:
    """The lines before and after each street of one text that belong to it. Where each walk
    over them ends is kept: streets written one after another ("3 Pemberton Court, 19 Gresham
    Street, …") walk over the same lines, and walking them again for each is quadratic."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._first: dict[int, int] = {}  # where a line starts → where the lines before start
        self._last: dict[int, int] = {}  # where a line ends → where the lines after end

    def extended(self, start: int, end: int) -> tuple[int, int]:
        """The street at ``start:end`` with the lines before and after it."""
        first = _walk(start, self._line_before, self._first)
        return first, _walk(end, self._line_after, self._last)

    def _line_before(self, start: int) -> int | None:
        # A line before is short: looking back a bounded way keeps long texts linear.
        before = _BEFORE.search(self.text, max(0, start - _LINE_BEFORE_MAX), start)
        return None if before is None else before.start()

    def _line_after(self, end: int) -> int | None:
        after = _AFTER.match(self.text, end)
        return None if after is None else after.end()


def _walk(position: int, step: Callable[[int], int | None], ends: dict[int, int]) -> int:
    """Where stepping from ``position`` until ``step`` finds nothing ends; ``ends`` keeps
    that for each position passed, and gives it for one passed before."""
    passed = []
    while position not in ends and (following := step(position)) is not None:
        passed.append(position)
        position = following
    end = ends.get(position, position)
    for position in passed:
        ends[position] = end
    return end


def _joined(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans that overlap or that only a comma parts are one address: "3 Pemberton Court,
    19 Gresham Street"."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and (
            start <= joined[-1][1] or _JOIN.fullmatch(text, joined[-1][1], start) is not None
        ):
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined
