"""People's names in message text, read from Apertium's dictionaries.

Apertium's morphological analyzers tag first names (``<np><ant>``: Daniel, Carmen, Jürgen),
surnames (``<np><cog>``) and places (``<np><loc>``). A name here is a run of capitalized
words (particles allowed inside: de, da, dos, van, von, del) that holds a first name or a
surname which is not also a place, or that follows a title (Mr, Ms, Dr, Sr, Sra, Herr, Mme…):
"Daniel Okafor" (a surname no dictionary knows), "Ms. Brandt" (the title is part of it). Two
or three capitalized words that no dictionary knows at all are a name too ("Adaeze Nwosu",
"Tomasz Wiśniewski": the dictionaries hold few names from outside Europe). Plain words that
begin a run are left out ("Please", "Hi"), and words in capitals (NIR, IBAN) and the chat's
participants' own names end it (theirs are not redacted). Not names: months and weekdays,
brands (``<np><al>``), and a lone first name after a greeting or thanks ("Thanks Julien!"),
which names the person spoken to: a participant.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from threadwise.text.found import Found

_WORD = r"[A-ZÀ-ÖØ-Þ][\w'\u2019-]*"
_RUN = re.compile(rf"{_WORD}(?:\s+(?:(?:d[aeo]s?|de la|del|van|von|van der|von der)\s+)?{_WORD})*")
_CAPITALIZED = re.compile(_WORD)
_TITLE = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Dra|Prof|Sr|Sra|Srta|Dña|Don|Doña|Herr|Frau|Mme|Mlle|"
    r"Senhor|Senhora|Dona)\.?|\bM\.)(?:\s+(?:Dr|Prof)\.?)?\s*$"
)
# The longest title or greeting, with what may follow it before the spaces before a name
# ("Senhora Prof.", "thank you!").
_TITLE_OR_GREETING_MAX = 32
_GREETING = re.compile(
    r"\b(?:hi|hey|hello|hallo|hola|ol[áa]|bonjour|salut|ciao|dear|thanks|thank you|thx|cheers|"
    r"danke|merci|gracias|obrigad[oa]|grazie)[,!]?\s*$",
    re.IGNORECASE,
)
_CALENDAR_WORDS = """
    January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Enero Febrero Marzo Abril Mayo
    Junio Julio Agosto Septiembre Octubre Noviembre Diciembre Lunes Martes Miércoles Jueves
    Viernes Sábado Domingo Janvier Février Mars Avril Mai Juin Juillet Août Septembre Octobre
    Novembre Décembre Lundi Mardi Mercredi Jeudi Vendredi Samedi Dimanche Januar Februar März
    Juni Juli Oktober Dezember Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag
    Janeiro Fevereiro Março Maio Junho Julho Setembro Outubro Novembro Dezembro
    English German French Spanish Portuguese Italian Dutch Deutsch Englisch"""
_CALENDAR = frozenset(_CALENDAR_WORDS.split())
# Words no analyzer here knows that begin a run without being names: German has no
# dictionary among Apertium's packages, and capitalizes its nouns ("Meine Bestellnummer").
_PLAIN_WORDS = """
    Der Die Das Den Dem Des Ein Eine Einen Einem Einer Eines Mein Meine Meinem Meinen
    Meiner Meines Dein Deine Ihr Ihre Ihrem Ihren Ihrer Ihres Unser Unsere Unserem Unseren
    Unserer Euer Eure Sein Seine Seinem Seinen Ihn Ich Wir Sie Er Es Bitte Danke Hallo Guten
    Sehr Liebe Lieber Vielen Herzlichen Gestern Heute Morgen Leider Also Und Aber Oder"""
_PLAIN = frozenset(_PLAIN_WORDS.split())


class Analyzer(Protocol):
    def analyzed_languages(self) -> frozenset[str]: ...

    def analyze(self, text: str, language: str) -> list[tuple[str, str]]: ...


def tags_of(readings: str) -> frozenset[str]:
    """``ant``, ``cog``, ``loc``, ``np`` (another proper noun) and ``word`` (anything else)
    among an analyzer's readings of a word; none when it does not know it."""
    if readings.startswith("*"):
        return frozenset()
    tags = set()
    for reading in readings.split("/"):
        if "<np><ant>" in reading:
            tags.add("ant")
        elif "<np><cog>" in reading:
            tags.add("cog")
        elif "<np><loc>" in reading:
            tags.add("loc")
        elif "<np>" in reading:
            tags.add("np")
        else:
            tags.add("word")
    return frozenset(tags)


def word_tags(analyzer: Analyzer, words: Collection[str]) -> dict[str, frozenset[str]]:
    """What every analyzed language's dictionary says of ``words``, together: a name one
    language lacks (João in Spanish) another may have."""
    tags: dict[str, set[str]] = {word: set() for word in words}
    if not words:
        return {}
    text = " ".join(sorted(words))
    for language in sorted(analyzer.analyzed_languages()):
        for surface, readings in analyzer.analyze(text, language):
            if surface in tags:
                tags[surface] |= tags_of(readings)
    return {word: frozenset(found) for word, found in tags.items()}


def capitalized_words(text: str) -> set[str]:
    return set(_CAPITALIZED.findall(text))


def find_people(
    text: str, tags: Mapping[str, frozenset[str]], participants: Sequence[str] = ()
) -> list[Found]:
    """The names of people in ``text``, given each capitalized word's ``tags``."""
    own = {word.casefold() for name in participants for word in _CAPITALIZED.findall(name)}
    found = []
    for run in _RUN.finditer(text):
        for start, end in _pieces(text, run.start(), run.end(), own):
            words = list(_CAPITALIZED.finditer(text, start, end))
            # Plain words that begin it: "Please", "Hi", "Thanks", "Meine".
            plain = 0
            while plain < len(words) and _is_plain(words[plain].group(), tags):
                plain += 1
            if plain == len(words):
                continue
            if plain:
                start = _after_spaces(text, words[plain - 1].end(), end)
            names = [word.group() for word in words[plain:]]
            title = _ending_at(_TITLE, text, start)
            named = any(_name_word(tags.get(word, frozenset())) for word in names)
            unknown = 2 <= len(names) <= 3 and all(
                len(word) > 2 and not tags.get(word) for word in names
            )
            if not (title or named or unknown):
                continue
            if title is None and len(names) == 1 and _ending_at(_GREETING, text, start):
                continue  # "Thanks Julien!": the person spoken to
            if title is not None:
                start = title.start()
            found.append(Found("PERSON", start, end, text[start:end]))
    return found


def _is_plain(word: str, tags: Mapping[str, frozenset[str]]) -> bool:
    return word in _PLAIN or _plain(tags.get(word, frozenset()))


def _after_spaces(text: str, start: int, end: int) -> int:
    while start < end and text[start].isspace():
        start += 1
    return start


def _ending_at(pattern: re.Pattern[str], text: str, start: int) -> re.Match[str] | None:
    """``pattern`` (a title or a greeting, then spaces) ending at ``start``. It is a few
    words long: it is looked for only just before the spaces before ``start``, so that a
    long text's names are not each looked for back to its beginning (quadratic)."""
    words_end = start
    while words_end > 0 and text[words_end - 1].isspace():
        words_end -= 1
    return pattern.search(text, max(0, words_end - _TITLE_OR_GREETING_MAX), start)


def _pieces(text: str, start: int, end: int, own: set[str]) -> list[tuple[int, int]]:
    """The run split at words in capitals (NIR, IBAN, PR), months and weekdays, and the
    participants' own names (``own``, casefolded words): "Thanks Luis" leaves "Thanks"."""
    pieces = []
    piece_start: int | None = None
    piece_end = start
    for word in _CAPITALIZED.finditer(text, start, end):
        acronym = len(word.group()) > 1 and word.group().isupper()
        if acronym or word.group().casefold() in own or word.group() in _CALENDAR:
            if piece_start is not None:
                pieces.append((piece_start, piece_end))
            piece_start = None
            continue
        if piece_start is None:
            piece_start = word.start()
        piece_end = word.end()
    if piece_start is not None:
        pieces.append((piece_start, piece_end))
    return pieces


def _name_word(tags: frozenset[str]) -> bool:
    return bool(tags & {"ant", "cog"}) and not tags & {"loc", "np"}


def _plain(tags: frozenset[str]) -> bool:
    return "word" in tags and not _name_word(tags)
