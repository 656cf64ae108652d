"""Readdressing: a translation rewritten from one register into the other, word by word.

The model is told which register to write in (``text.formality``), and mostly does; a line
it wrote in the other register even when asked twice is rewritten here. The language's
morphological analyzer reads each word; rules pick the words that address the reader:
pronouns and possessives ("vous", "votre"; "su"; "sua", "lhe"), and verbs whose subject is
the reader (a second person; in Spanish and Portuguese, where the formal register speaks in
the third person, one with no subject of its own before it in its clause, or a request);
the language's generator writes each in the other register ("Envoyez" → "Envoie", "Pode" →
"Podes"). Every other word stays as the model wrote it. German has no dictionary here:
its formal "Sie" becomes "du" by the words' shapes (``german_informal``); the other way, its
lines are left to the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from threadwise.protocol import Formality

Analyze = Callable[[str, str], Sequence[tuple[str, str]]]
# Lexical forms ("envoyer<vblex><imp><p2><sg>") → words, None where there is none.
Generate = Callable[[Sequence[str], str, str | None], list[str | None]]

_VERB = re.compile(r"<(vblex|vbmod|vaux|vbhaver|vbser)>")
_CLAUSE_WORD = re.compile(r"<(cnjsub|cnjcoo|cnjadv|rel)>")
_VOWEL = re.compile(r"[aeiouyhàâéèêëîïôûùAEIOUYHÀÂÉÈÊËÎÏÔÛÙ]")
# Pronouns that are the reader, in either register.
_READER = frozenset({"usted", "tú", "você", "vous", "tu", "senhor", "senhora", "ti", "toi"})
_SUBJECT_PRONOUNS_FR = frozenset({"je", "j'", "il", "elle", "on", "nous", "ils", "elles"})


@dataclass
class _Unit:
    surface: str
    readings: list[str]
    start: int  # where the surface is in the text; -1: not found (never replaced)
    hyphened: bool  # joined to the word before by a hyphen: "Avez-vous"

    @property
    def key(self) -> str:
        return self.surface.casefold()

    @property
    def is_word(self) -> bool:
        return any(c.isalpha() for c in self.surface)

    def has(self, tag: str) -> bool:
        return any(tag in r for r in self.readings)

    @property
    def is_verb(self) -> bool:
        return any(_VERB.search(r) for r in self.readings)

    @property
    def only_verb(self) -> bool:
        """A verb and nothing but a verb or an adjective: "Pode", "precisa", not "cita" (a
        noun too) or "una" (an article too)."""
        heads = [r.split("+")[0] for r in self.readings]
        return any(_VERB.search(h) for h in heads) and all(
            _VERB.search(h) or "<adj>" in h for h in heads
        )

    @property
    def opens_clause(self) -> bool:
        """Punctuation, or a conjunction: what follows is a new clause."""
        return not self.is_word or any(_CLAUSE_WORD.search(r) for r in self.readings)

    @property
    def could_be_subject(self) -> bool:
        if self.key in _READER:
            return False
        return any("<n>" in r or "<np>" in r or "<prn><tn>" in r for r in self.readings)


# Replacements planned: a word to write as is, or a lexical form to generate.
@dataclass(frozen=True)
class _Word:
    text: str


@dataclass(frozen=True)
class _Form:
    form: str
    suffix: str = ""  # written after the generated word: "-tu"


_Plan = dict[int, _Word | _Form]


class Readdresser:
    """Rewrites lines into the register asked for, in the languages it has both an analyzer
    and a generator for."""

    def __init__(self, analyze: Analyze, generate: Generate, languages: frozenset[str]) -> None:
        self.analyze = analyze
        self.generate = generate
        self.languages = languages & {"es", "fr", "pt"}

    def rewrites(self, language: str, formality: Formality) -> bool:
        """Whether lines into ``language`` can be rewritten into ``formality``'s register."""
        if language == "de":
            return formality == "informal"
        return language in self.languages

    def rewrite(self, text: str, language: str, region: str | None, formality: Formality) -> str:
        """``text`` in ``formality``'s register (as it is, where nothing is to change)."""
        if language == "de" and formality == "informal":
            return german_informal(text)
        if language not in self.languages or formality not in ("formal", "informal"):
            return text
        units = self._units(text, language)
        informal = formality == "informal"
        if language == "fr":
            plan = _plan_french(units, informal)
        else:
            plan = _plan_iberian(units, language, region == "BR", informal)
        return self._apply(text, units, plan, language, region)

    def _units(self, text: str, language: str) -> list[_Unit]:
        units: list[_Unit] = []
        cursor = 0
        for surface, readings in self.analyze(text, language):
            start = text.find(surface, cursor)
            if start >= 0:
                cursor = start + len(surface)
            hyphened = start > 0 and text[start - 1] == "-"
            units.append(_Unit(surface, readings.lstrip("*").split("/"), start, hyphened))
        return units

    def _generate(self, forms: list[str], language: str, region: str | None) -> list[str | None]:
        if not forms:
            return []
        written = self.generate(forms, language, region)
        # Spanish dictionaries write attached pronouns two ways ("+nos", "+prpers").
        retry = [
            i for i, w in enumerate(written) if w is None and _other_spelling(forms[i], language)
        ]
        if retry:
            again = self.generate(
                [_other_spelling(forms[i], language) for i in retry], language, region
            )
            for index, word in zip(retry, again, strict=True):
                written[index] = word
        return written

    def _apply(
        self, text: str, units: list[_Unit], plan: _Plan, language: str, region: str | None
    ) -> str:
        forms = [(i, r) for i, r in plan.items() if isinstance(r, _Form)]
        written = self._generate([f.form for _, f in forms], language, region)
        words = {i: r.text for i, r in plan.items() if isinstance(r, _Word)}
        words.update(
            {
                i: w + form.suffix
                for (i, form), w in zip(forms, written, strict=True)
                if w is not None and isinstance(form, _Form)
            }
        )
        for index in sorted(words, reverse=True):
            unit = units[index]
            if unit.start < 0:
                continue
            word = words[index]
            end = unit.start + len(unit.surface)
            if word and unit.surface[:1].isupper():
                word = word[:1].upper() + word[1:]
            if not word:  # a word taken out, with the space after it
                while end < len(text) and text[end] == " ":
                    end += 1
                following = text[end : end + 1]
                if unit.surface[:1].isupper() and following.islower():
                    text = text[:end] + following.upper() + text[end + 1 :]
            elif language == "fr" and word.casefold() == "te" and _vowel_after(text, end):
                word, end = word[0] + "'", end + 1  # "te aider" → "t'aider"
            text = text[: unit.start] + word + text[end:]
        return text


def _other_spelling(form: str, language: str) -> str:
    """A Spanish form with attached pronouns as other dictionaries spell them ("+prpers");
    "" if there is none."""
    if language != "es" or "<enc>" not in form:
        return ""
    form = re.sub(r"\+[^<+]+<prn><enc>", "+prpers<prn><enc>", form)
    return form.replace("<enc><p3><nt>", "<enc><p3><m><sg>")


def _vowel_after(text: str, end: int) -> bool:
    return text[end : end + 1] == " " and bool(_VOWEL.match(text[end + 1 : end + 2]))


def _verb_form(unit: _Unit, old: str, new: str, imperative: bool | None) -> _Form | None:
    """``unit`` as a verb with ``old`` person tags (``<p2><pl>``) made ``new``: its imperative
    reading when ``imperative``, else another one (None: either)."""
    readings = [r for r in unit.readings if _VERB.search(r.split("+")[0]) and old in r]
    if imperative is not None:
        readings = [r for r in readings if ("<imp>" in r) == imperative]
    if not readings:
        return None
    head, _, clitics = readings[0].partition("+")
    lemma = head[: head.index("<")] if "<" in head else head
    form = lemma[:1].lower() + lemma[1:] + head[len(lemma) :].replace(old, new, 1)
    return _Form(form + (f"+{clitics}" if clitics else ""))


def _clauses(units: list[_Unit]) -> list[int]:
    """Each unit's clause start: the index after the last punctuation or conjunction."""
    starts, start = [], 0
    for index, unit in enumerate(units):
        if unit.opens_clause:
            start = index + 1
        starts.append(start)
    return starts


_FRENCH_CLITICS = frozenset({"ne", "n'", "me", "m'", "te", "t'", "nous", "vous", "le", "la", "l'"})
_FRENCH_CLITICS |= {"les", "lui", "leur", "y", "en", "se", "s'"}


def _plan_french(units: list[_Unit], informal: bool) -> _Plan:
    """French: vous (and a verb in the second person plural) for the formal register, tu
    (and the singular) for the informal one; "vous" becomes tu, te or toi by its place."""
    plan: _Plan = {}
    starts = _clauses(units)
    with_subject: set[int] = set()  # verbs whose subject is the reader's pronoun
    reader, person = ("vous", "<p2><pl>") if informal else ("tu", "<p2><sg>")

    def verb_after(index: int) -> int | None:
        """The verb a pronoun at ``index`` goes with: the next unit past clitics ("ne")."""
        for later in range(index + 1, min(index + 4, len(units))):
            if units[later].is_verb and units[later].key not in _FRENCH_CLITICS:
                return later
            if units[later].key not in _FRENCH_CLITICS:
                return None
        return None

    for index, unit in enumerate(units):
        before = units[index - 1] if index > 0 else None
        following = units[index + 1] if index + 1 < len(units) else None
        if unit.key == reader and unit.hyphened:
            # "Avez-vous": settled once the verb is (an unknown one keeps it as it is).
            if before is not None and before.is_verb:
                with_subject.add(index - 1)
            elif before is not None and informal and _unknown_request(units, index - 1, starts):
                plan[index - 1] = _Word(before.surface[:-2] + "e")
                plan[index] = _Word("toi")
            continue
        if informal and _unknown_request(units, index, starts) and index + 1 not in plan:
            if following is None or not (following.hyphened and following.key == reader):
                plan[index] = _Word(unit.surface[:-2] + "e")  # "téléchargez" → "télécharge"
            continue
        if not informal and unit.key in ("te", "t'", "toi") and unit.has("<prn>"):
            if not unit.hyphened:  # "-toi" is settled with its verb
                plan[index] = _Word("vous " if unit.key == "t'" else "vous")
        elif unit.key == reader and (informal or unit.has("<prn>")):
            # vous → tu (subject), te (object) or toi (after a preposition); tu → vous.
            verb = verb_after(index)
            object_place = before is not None and (
                before.key in _FRENCH_CLITICS or before.key in _SUBJECT_PRONOUNS_FR
            )
            if before is not None and before.has("<pr>"):
                word = "toi" if informal else "vous"
            elif verb is not None and units[verb].has(person) and not object_place:
                word = "tu" if informal else "vous"
                with_subject.add(verb)
            elif verb is not None or (following is not None and following.key in _FRENCH_CLITICS):
                word = "te" if informal else "vous"
            else:
                word = "toi" if informal else "vous"
            plan[index] = _Word(word)
        elif informal and unit.key == "à vous":
            plan[index] = _Word("à toi")
        elif informal and unit.key == "votre":
            feminine = following is not None and following.has("<f>") and not following.has("<m>")
            vowel = following is not None and bool(_VOWEL.match(following.surface[:1]))
            plan[index] = _Word("ta" if feminine and not vowel else "ton")
        elif informal and unit.key == "vos":
            plan[index] = _Word("tes")
        elif not informal and unit.key in ("ton", "ta") and unit.has("<det>"):
            plan[index] = _Word("votre")
        elif not informal and unit.key == "tes" and unit.has("<det>"):
            plan[index] = _Word("vos")
    old, new = person, ("<p2><sg>" if informal else "<p2><pl>")
    questions = _questions(units)
    for index, unit in enumerate(units):
        following = units[index + 1] if index + 1 < len(units) else None
        if not unit.is_verb or not unit.has(old) or index in plan:
            continue
        attached = _attached_reader(unit, informal)
        if attached is not None:  # "Pouvez-vous", "Connecte-toi": one word here
            question = questions[index]
            head = attached.split("+")[0].replace("<imp>", "<pri>" if question else "<imp>")
            lemma = head[: head.index("<")]
            suffix = ("-tu" if question else "-toi") if informal else "-vous"
            written = lemma[:1].lower() + lemma[1:] + head[len(lemma) :].replace(old, new, 1)
            plan[index] = _Form(written, suffix)
            continue
        if informal and unit.key.startswith("veuill") and following is not None:
            # "Veuillez patienter": "Patiente" (a verb the dictionary knows, or one in "-er"),
            # else "Merci de patienter".
            request: _Form | _Word | None = _verb_form(following, "<inf>", "<imp><p2><sg>", None)
            unknown = all("<" not in r for r in following.readings)
            if request is None and unknown and following.key.endswith("er"):
                request = _Word(following.surface[:-2] + "e")
            elided = _VOWEL.match(following.surface[:1])
            plan[index] = _Word("") if request else _Word("Merci d'" if elided else "Merci de")
            if request is not None:
                plan[index + 1] = request
            continue
        clause = units[starts[index] : index]
        if index in with_subject:
            form = _verb_form(unit, old, new, imperative=False)
        elif all(u.key in _FRENCH_CLITICS for u in clause):  # a request: "Ne vous inquiétez"
            form = _verb_form(unit, old, new, imperative=True)
        else:
            continue
        if form is not None:
            plan[index] = form
            after = index + 1
            if after < len(units) and units[after].hyphened and units[after].key == reader:
                imperative = "<imp>" in form.form
                plan[after] = _Word(("toi" if imperative else "tu") if informal else "vous")
    return plan


def _unknown_request(units: list[_Unit], index: int, starts: list[int]) -> bool:
    """A word the French dictionary does not know, in "-ez", opening its clause: a request
    with a verb in "-er" ("Connectez", "téléchargez"), the most common kind of new verb."""
    unit = units[index]
    unknown = all("<" not in r for r in unit.readings)
    return unknown and unit.key.endswith("ez") and len(unit.key) > 4 and starts[index] == index


def _attached_reader(unit: _Unit, informal: bool) -> str | None:
    """The reading of a French verb with the reader's pronoun attached, in the register
    being replaced ("Pouvez-vous" → ``pouvoir<vbmod><imp><p2><pl>+vous<prn><enc>…``)."""
    pronouns = ("+vous<prn><enc>",) if informal else ("+tu<prn><enc>", "+toi<prn><enc>")
    return next((r for r in unit.readings if any(p in r for p in pronouns)), None)


def _questions(units: list[_Unit]) -> list[bool]:
    """Whether the sentence of each unit ends with a question mark: for all of them in one
    pass from the end (looked for from each unit, a long text was quadratic)."""
    questions = [False] * len(units)
    question = False  # the sentence that ends after the unit being looked at
    for index in range(len(units) - 1, -1, -1):
        questions[index] = question
        if any("<sent>" in r for r in units[index].readings):
            question = "?" in units[index].surface
    return questions


_POSSESSIVES = {
    "es": (
        {
            "su": "tu",
            "sus": "tus",
            "suyo": "tuyo",
            "suya": "tuya",
            "suyos": "tuyos",
            "suyas": "tuyas",
        }
    ),
    "pt": ({"seu": "teu", "sua": "tua", "seus": "teus", "suas": "tuas"}),
}
_CLITIC = {"es": ("le", "te"), "pt": ("lhe", "te")}  # formal, informal


def _plan_iberian(units: list[_Unit], language: str, brazilian: bool, informal: bool) -> _Plan:
    """Spanish and Portuguese: the formal register speaks to the reader in the third person
    (usted; o senhor, or no pronoun), the informal one in the second (tú; tu; in Brazil the
    informal você also takes the third person, so only pronouns change there)."""
    plan: _Plan = {}
    starts = _clauses(units)
    possessives = _POSSESSIVES[language]
    if not informal:
        possessives = {v: k for k, v in possessives.items()}
    if language == "es":  # vosotros (Apertium's "you"): one reader, in either register
        singular = possessives if informal else _POSSESSIVES["es"]
        possessives = possessives | {
            plural: singular[one] if informal else one
            for plural, one in (
                ("vuestro", "su"),
                ("vuestra", "su"),
                ("vuestros", "sus"),
                ("vuestras", "sus"),
            )
        }
    formal_clitic, informal_clitic = _CLITIC[language]
    old_clitic, new_clitic = (
        (formal_clitic, informal_clitic) if informal else (informal_clitic, formal_clitic)
    )
    old_tags, new_tags = (
        ("<p3><mf><sg>", "<p2><mf><sg>") if informal else ("<p2><mf><sg>", "<p3><mf><sg>")
    )
    addressed: set[int] = set()
    for index, unit in enumerate(units):
        before = units[index - 1] if index > 0 else None
        following = units[index + 1] if index + 1 < len(units) else None
        words = unit.key.split()
        if any(w in possessives for w in words) and (unit.has("<pos>")):
            plan[index] = _Word(
                " ".join(possessives.get(w.casefold(), w) for w in unit.surface.split())
            )
        elif (unit.key == old_clitic or unit.key == "os") and unit.has("<prn><pro>"):
            plan[index] = _Word(new_clitic)
        elif unit.key in ("vosotros", "vosotras") and language == "es":
            plan[index] = _Word("tú" if informal else "usted")
            addressed.add(index + 1)
        elif (informal and unit.key in ("usted", "você")) or (
            informal
            and unit.key in ("senhor", "senhora")
            and before is not None
            and before.key in ("o", "a")
        ):
            if unit.key in ("senhor", "senhora"):
                plan[index - 1] = _Word("")
            after_preposition = before is not None and before.has("<pr>")
            pronoun = (
                "você"
                if brazilian
                else ("ti" if after_preposition else ("tú" if language == "es" else "tu"))
            )
            if (
                language == "pt"
                and not brazilian
                and not after_preposition
                and following is not None
                and following.is_verb
            ):
                pronoun = ""  # "O senhor pode" → "Podes": the verb says who
            plan[index] = _Word(pronoun)
            addressed.add(index + 1)
        elif not informal and unit.key in ("tú", "tu", "ti", "contigo") and unit.has("<prn>"):
            if language == "es":
                plan[index] = _Word("con usted" if unit.key == "contigo" else "usted")
            elif brazilian:
                plan[index] = _Word("com o senhor" if unit.key == "contigo" else "o senhor")
            else:
                replaced = {"contigo": "consigo", "ti": "si"}.get(unit.key, "")
                plan[index] = _Word(replaced)
            addressed.add(index + 1)
        elif brazilian:
            continue
        elif unit.only_verb and not (before is not None and before.has("<det>")):
            form = _iberian_verb(units, index, starts[index], informal, index in addressed)
            enclitic = f"+{old_clitic}<prn><enc>"
            if form is None and unit.has(enclitic):
                # "telefonar-lhe": only the pronoun attached to it changes.
                reading = next(r for r in unit.readings if enclitic in r)
                form = _Form(reading[:1].lower() + reading[1:])
            if form is not None:
                changed = form.form.replace(
                    f"+{old_clitic}<prn><enc>{old_tags}", f"+{new_clitic}<prn><enc>{new_tags}"
                )
                plan[index] = _Form(changed)
    return plan


def _iberian_verb(
    units: list[_Unit], index: int, start: int, informal: bool, addressed: bool
) -> _Form | None:
    """The verb at ``index`` in the other register, if the reader is its subject: in the
    second person, or (to informal) in the third with no subject before it in its clause
    or right after the reader's pronoun; at its clause's start, a request."""
    unit = units[index]
    # A request opens a sentence or a clause after a comma or "and"; after "que" or "se" a
    # verb in the subjunctive looks like one ("que tenha": that you have).
    subordinate = index > 0 and any(
        tag in r for r in units[index - 1].readings for tag in ("<cnjsub>", "<rel>", "<cnjadv>")
    )
    first = start == index and not subordinate
    if unit.has("<p2><pl>"):  # vosotros: "Revisad", "podéis"
        return _verb_form(unit, "<p2><pl>", "<p2><sg>" if informal else "<p3><sg>", None)
    if not informal:
        if first and unit.has("<imp><p2><sg>"):
            return _verb_form(unit, "<imp><p2><sg>", "<imp><p3><sg>", None)
        return _verb_form(unit, "<p2><sg>", "<p3><sg>", imperative=False)
    if not (addressed or not any(u.could_be_subject for u in units[start:index])):
        return None
    if unit.has("<inf>"):
        return None  # "Pode verificar": an infinitive, not a personal one ("verificares")
    # A request ("Revise", "Verifique") has no present indicative; "Pode" (he can) has one.
    if first and unit.has("<imp><p3><sg>") and not unit.has("<pri>"):
        return _verb_form(unit, "<imp><p3><sg>", "<imp><p2><sg>", None)
    return _verb_form(unit, "<p3><sg>", "<p2><sg>", imperative=False)


# German has no dictionary here: its rules go by the words' shapes. The finite verb of a
# formal "Sie" is the infinitive's form ("können"); the informal one's is irregular for
# these (and verbs ending in them: "erhalten", "zurückgeben"), else the stem and "-st".
_GERMAN_SECOND_PERSON = {
    "können": "kannst", "könnten": "könntest", "möchten": "möchtest", "müssen": "musst",
    "müssten": "müsstest", "wollen": "willst", "wollten": "wolltest", "sollen": "sollst",
    "sollten": "solltest", "dürfen": "darfst", "haben": "hast", "hatten": "hattest",
    "hätten": "hättest", "sind": "bist", "sein": "bist", "waren": "warst", "wären": "wärst",
    "werden": "wirst", "würden": "würdest", "wissen": "weißt", "geben": "gibst",
    "nehmen": "nimmst", "sehen": "siehst", "lesen": "liest", "helfen": "hilfst",
    "sprechen": "sprichst", "treffen": "triffst", "vergessen": "vergisst",
    "empfehlen": "empfiehlst", "halten": "hältst", "fahren": "fährst", "laufen": "läufst",
    "tragen": "trägst", "lassen": "lässt", "schlafen": "schläfst", "laden": "lädst",
    "tun": "tust", "mögen": "magst",
}  # fmt: skip
_GERMAN_REQUEST = {
    "geben": "gib", "nehmen": "nimm", "sehen": "sieh", "lesen": "lies", "helfen": "hilf",
    "sprechen": "sprich", "vergessen": "vergiss", "empfehlen": "empfiehl", "treffen": "triff",
    "sein": "sei", "haben": "hab", "werden": "werde",
}  # fmt: skip
_GERMAN_POSSESSIVE = {
    "Ihr": "dein", "Ihre": "deine", "Ihren": "deinen", "Ihrem": "deinem", "Ihrer": "deiner",
    "Ihres": "deines", "Ihnen": "dir",
}  # fmt: skip
_GERMAN_ACCUSATIVE_PREPOSITIONS = frozenset({"für", "um", "ohne", "gegen", "durch", "an"})
_GERMAN_DATIVE_PREPOSITIONS = frozenset({"mit", "bei", "von", "zu", "aus", "nach", "gegenüber"})
_GERMAN_SUBJECTS = frozenset({"ich", "wir", "er", "es", "man", "sie"})
_GERMAN_CLAUSE_WORDS = frozenset(
    {"und", "oder", "aber", "sondern", "denn", "wenn", "dass", "damit", "ob", "weil", "falls"}
    | {"sobald", "bevor", "während", "nachdem", "da", "als", "bis", "obwohl", "wie", "was"}
)
_GERMAN_TOKEN = re.compile(r"\w+(?:-\w+)*|[^\w\s]")


def _german_verb(word: str) -> bool:
    folded = word.casefold()
    return folded in _GERMAN_SECOND_PERSON or (
        folded.endswith(("en", "ern", "eln")) and len(folded) > 3
    )


def _german_second_person(verb: str) -> str:
    folded = verb.casefold()
    for infinitive in sorted(_GERMAN_SECOND_PERSON, key=len, reverse=True):
        if folded.endswith(infinitive) and (folded == infinitive or len(infinitive) > 4):
            written = folded[: len(folded) - len(infinitive)] + _GERMAN_SECOND_PERSON[infinitive]
            break
    else:
        stem = folded[:-1] if folded.endswith(("ern", "eln")) else folded[:-2]
        ending = "est" if stem.endswith(("d", "t", "chn", "ffn", "tm", "gn")) else "st"
        written = stem + ("t" if stem.endswith(("s", "ß", "z", "x")) else ending)
    return verb[0] + written[1:] if verb[:1].isupper() else written


def _german_request(verb: str) -> str:
    folded = verb.casefold()
    for infinitive, request in _GERMAN_REQUEST.items():
        if folded.endswith(infinitive) and (folded == infinitive or len(infinitive) > 4):
            written = folded[: len(folded) - len(infinitive)] + request
            break
    else:
        stem = folded[:-1] if folded.endswith(("ern", "eln")) else folded[:-2]
        written = stem + "e"
    return verb[0] + written[1:] if verb[:1].isupper() else written


def german_informal(text: str) -> str:
    """German "Sie" (and its verb) and "Ihr…" turned into "du" and "dein…"; where a verb or
    the case cannot be told from the words' shapes, the word is left as it is."""
    tokens = [(m.start(), m.group()) for m in _GERMAN_TOKEN.finditer(text)]
    words = [t for _, t in tokens]
    new: dict[int, str] = {}
    # What the rules look at around each "Sie" (where its clause starts and what opens it,
    # where the words after it end, whether its sentence asks), found for every word in one
    # pass: looked for from each "Sie", it made a text of many quadratic.
    clause_starts: list[int] = []
    subjects, bittes = [0], [0]  # how many of the words before each are subjects, "bitte"
    for index, word in enumerate(words):
        joined = index > 0 and _german_word(words[index - 1])
        joined = joined and words[index - 1].casefold() not in _GERMAN_CLAUSE_WORDS
        clause_starts.append(clause_starts[index - 1] if joined else index)
        subjects.append(subjects[-1] + (word.casefold() in _GERMAN_SUBJECTS))
        bittes.append(bittes[-1] + (word.casefold() == "bitte"))
    words_end = [len(words)] * (len(words) + 1)  # from each word on, the first not a word
    asks = [False] * len(words)
    stop = "."
    for index in range(len(words) - 1, -1, -1):
        words_end[index] = words_end[index + 1] if _german_word(words[index]) else index
        if words[index] in ".!?":
            stop = words[index]
        asks[index] = stop == "?"

    for index, word in enumerate(words):
        if word in _GERMAN_POSSESSIVE:
            new[index] = _GERMAN_POSSESSIVE[word]
            continue
        if word != "Sie":
            continue
        start = clause_starts[index]
        before = words[index - 1] if index > 0 else ""
        following = words[index + 1] if index + 1 < len(words) else ""
        leading = index - start - (bittes[index] - bittes[start])  # "bitte" aside
        if before.casefold() in _GERMAN_ACCUSATIVE_PREPOSITIONS:
            new[index] = "dich"
        elif before.casefold() in _GERMAN_DATIVE_PREPOSITIONS:
            new[index] = "dir"
        elif index > start and _german_verb(before):
            if subjects[index - 1] > subjects[start]:
                new[index] = "dich"  # "Wir rufen Sie an"
            elif leading == 1 and not asks[index]:
                new[index - 1] = _german_request(before)  # "Bitte senden Sie" → "Bitte sende"
                new[index] = ""
                if following == "sich":
                    new[index + 1] = "dich"
            else:
                new[index - 1] = _german_second_person(before)  # "Können Sie" → "Kannst du"
                new[index] = "du"
        elif (
            index == start or before.casefold() in _GERMAN_CLAUSE_WORDS or not _german_verb(before)
        ):
            new[index] = "du"
            if index == 0 or words[index - 1] in ".!?:;":
                if _german_verb(following):  # "Sie können" → "Du kannst"
                    new[index + 1] = _german_second_person(following)
                continue
            end = words_end[index + 1]  # "…, dass Sie … sind" → "…, dass du … bist"
            if end - 1 > index and _german_verb(words[end - 1]):
                new[end - 1] = _german_second_person(words[end - 1])
    pieces = []
    position = 0
    for index in sorted(new):
        start, word = tokens[index]
        end = start + len(word)
        replacement = new[index]
        if not replacement:
            while end < len(text) and text[end] == " ":
                end += 1
        elif word[:1].isupper() and (index == 0 or words[index - 1] in '.!?:"“„'):
            replacement = replacement[:1].upper() + replacement[1:]
        pieces += [text[position:start], replacement]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _german_word(token: str) -> bool:
    return any(c.isalnum() for c in token)
