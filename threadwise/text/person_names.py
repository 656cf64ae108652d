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

A name in lower case or in capitals ("maria gonzalez", "MARIA GONZALEZ") has no capital to
tell it from the words around it: it is a first name followed by one or two surnames the
dictionaries know (one they do not know only after the writer's introduction: "ich bin lena
koch"), and a first name that is also a word ("grace", "rose", "claire") counts only before a
surname that is not ("claire dubois", not "grace period"). The text is read in its normal
form (``spans.NormalizedText``: "Mar\u200bia" is Maria), and what is found is the text's own
characters.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from threadwise.text.found import Found
from threadwise.text.spans import NormalizedText

_WORD = r"[A-ZÀ-ÖØ-Þ][\w'\u2019-]*"
_RUN = re.compile(rf"{_WORD}(?:\s+(?:(?:d[aeo]s?|de la|del|van|von|van der|von der)\s+)?{_WORD})*")
_CAPITALIZED = re.compile(_WORD)
_ANY_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
_GAP = re.compile(r"[ \t]+")
# Titles written without a full stop begin the run of capitalized words of the name.
_TITLE_WORD_LIST = (
    "Mr Mrs Ms Miss Mx Dr Dra Prof Sr Sra Srta Dña Doña Herr Frau Mme Mlle Senhor Senhora Dona"
)
_TITLE_WORDS = frozenset(_TITLE_WORD_LIST.split())
_TITLE = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Dra|Prof|Sr|Sra|Srta|Dña|Don|Doña|Herr|Frau|Mme|Mlle|"
    r"Senhor|Senhora|Dona)\.?|\bM\.)(?:\s+(?:Dr|Prof)\.?)?\s*$"
)
# The longest title or greeting, with what may follow it before the spaces before a name
# ("Senhora Prof.", "thank you!").
_TITLE_OR_GREETING_MAX = 32
# What a writer says before giving their own name, in lower case as well.
_INTRODUCTION = re.compile(
    r"\b(?:name(?: is|:)?|i am|i'?m|this is|me llamo|mi nombre es|soy|je m'appelle|je suis|"
    r"mon nom est|ich bin|ich hei(?:ß|ss)e|name ist|sou|me chamo|nome [ée]|aqui [ée])"
    r"(?: [ao])?[:,]?\s*$",
    re.IGNORECASE,
)
# Particles of surnames (von der Leyen) do not begin a name in lower case: "von" is a first
# name in some dictionary.
_PARTICLE_WORDS = "von van der den de la le du da das do dos del di"
_PARTICLES = frozenset(_PARTICLE_WORDS.split())
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
    """The words of ``text`` to look up in the dictionaries, capitalized as a name is: those
    that are as they are, the others ("maria", "MARIA") as "Maria"."""
    normal = NormalizedText(text).text
    words = set(_CAPITALIZED.findall(normal))
    words.update(word.capitalize() for word in _ANY_WORD.findall(normal) if _case(word))
    return words


def find_people(
    text: str, tags: Mapping[str, frozenset[str]], participants: Sequence[str] = ()
) -> list[Found]:
    """The names of people in ``text``, given the ``tags`` of its ``capitalized_words``."""
    own = {word.casefold() for name in participants for word in _ANY_WORD.findall(name)}
    normal = NormalizedText(text)
    found = _capitalized(normal.text, tags, own) + _uncapitalized(normal.text, tags, own)
    return sorted((normal.in_original(f) for f in found), key=lambda f: f.start)


def _capitalized(text: str, tags: Mapping[str, frozenset[str]], own: set[str]) -> list[Found]:
    found = []
    for run in _RUN.finditer(text):
        for start, end in _pieces(text, run.start(), run.end(), own):
            words = list(_CAPITALIZED.finditer(text, start, end))
            names = [word.group() for word in words]
            # Plain words that begin it: "Please", "Hi", "Thanks"; not a first name that is
            # also a word or a place when a full name begins with it ("Maria Gonzalez").
            plain = 0
            while (
                plain < len(names)
                and _is_plain(names[plain], tags)
                and not _full_name(names, plain, tags)
            ):
                plain += 1
            if plain == len(names):
                continue
            if plain:
                start = _after_spaces(text, words[plain - 1].end(), end)
            names = names[plain:]
            title = _ending_at(_TITLE, text, start)
            titled = title is not None
            if len(names) > 1 and names[0] in _TITLE_WORDS:  # "Frau Anna Schmidt"
                names, titled = names[1:], True
            named = _full_name(names, 0, tags) or any(
                _name_word(tags.get(word, frozenset())) for word in names
            )
            unknown = 2 <= len(names) <= 3 and all(
                len(word) > 2 and not tags.get(word) for word in names
            )
            if not (titled or named or unknown):
                continue
            if not titled and len(names) == 1 and _ending_at(_GREETING, text, start):
                continue  # "Thanks Julien!": the person spoken to
            if title is not None:
                start = title.start()
            found.append(Found("PERSON", start, end, text[start:end]))
    return found


def _uncapitalized(text: str, tags: Mapping[str, frozenset[str]], own: set[str]) -> list[Found]:
    """Names in lower case or in capitals: a first name and one or two surnames, in the same
    case, with only spaces between them."""
    words = list(_ANY_WORD.finditer(text))
    found = []
    at = 0
    while at < len(words):
        length = _uncapitalized_name(text, words, at, tags, own)
        ambiguous = "word" in _tags_of_word(words[at], tags)
        if length and ambiguous and _uncapitalized_name(text, words, at + 1, tags, own):
            length = 0  # "ich bin lena koch": the name begins at the next word
        if not length:
            at += 1
            continue
        start, end = words[at].start(), words[at + length - 1].end()
        found.append(Found("PERSON", start, end, text[start:end]))
        at += length
    return found


def _uncapitalized_name(
    text: str,
    words: Sequence[re.Match[str]],
    at: int,
    tags: Mapping[str, frozenset[str]],
    own: set[str],
) -> int:
    """How many words from ``words[at]`` make a name in lower case or in capitals (none, two
    or three). A surname no dictionary knows is taken only after the writer's introduction
    ("ich bin lena koch"): German, which no dictionary here has, would read as names
    everywhere else ("von drei bis", "mir sagen"); a third word only if it is a name alone."""
    word = words[at].group()
    case = _case(word)
    first = _tags_of_word(words[at], tags)
    if (
        case is None
        or at + 1 >= len(words)
        or not _first_name(first)
        or word.casefold() in own
        or word.casefold() in _PARTICLES
        or word.capitalize() in _CALENDAR
    ):
        return 0
    introduced = _ending_at(_INTRODUCTION, text, words[at].start()) is not None
    length = 1
    for following in words[at + 1 : at + 3]:
        surname = _tags_of_word(following, tags)
        if (
            _case(following.group()) != case
            or not _GAP.fullmatch(text, words[at + length - 1].end(), following.start())
            or following.group().casefold() in own
            or not _surname(first, following.group(), surname, unknown=introduced)
            or (length == 2 and not (_name_word(surname) and "word" not in surname))
        ):
            break
        length += 1
    return length if length > 1 else 0


def _case(word: str) -> str | None:
    """The case of a word of two letters or more written in one, "lower" or "upper"."""
    if len(word) < 2:
        return None
    if word.islower():
        return "lower"
    return "upper" if word.isupper() else None


def _tags_of_word(word: re.Match[str], tags: Mapping[str, frozenset[str]]) -> frozenset[str]:
    return tags.get(word.group().capitalize(), frozenset())


def _full_name(names: Sequence[str], at: int, tags: Mapping[str, frozenset[str]]) -> bool:
    """Whether ``names[at:]`` is two or three words, a first name and surnames, or words no
    dictionary knows after a first name that is not also a place ("Anna Schmidt", not
    "London Gazette")."""
    rest = names[at + 1 : at + 3]
    if not rest or len(names) - at > 3:
        return False
    first = tags.get(names[at], frozenset())
    unknown = "loc" not in first
    return _first_name(first) and all(
        _surname(first, name, tags.get(name, frozenset()), unknown) for name in rest
    )


def _first_name(tags: frozenset[str]) -> bool:
    return "ant" in tags and "np" not in tags  # not a brand's (Ryder Cup)


def _surname(first: frozenset[str], word: str, tags: frozenset[str], unknown: bool) -> bool:
    """Whether ``word``, tagged ``tags``, goes on a name begun by a first name tagged
    ``first``: a name (only a surname that is not also a word after a first name that is one:
    "claire dubois", not "grace period" or "said michael"), or when ``unknown``, a word no
    dictionary knows."""
    if "word" in first:
        return "cog" in tags and _name_word(tags) and "word" not in tags
    return bool(tags & {"ant", "cog"}) or (unknown and len(word) > 2 and not tags)


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
    """The run split at words in capitals (NIR, IBAN, PR), months and weekdays, German words
    no name is made of ("Schreiben Sie"), and the participants' own names (``own``,
    casefolded words): "Thanks Luis" leaves "Thanks"."""
    pieces = []
    piece_start: int | None = None
    piece_end = start
    for word in _CAPITALIZED.finditer(text, start, end):
        acronym = len(word.group()) > 1 and word.group().isupper()
        ends = word.group() in _CALENDAR or word.group() in _PLAIN
        if acronym or ends or word.group().casefold() in own:
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
