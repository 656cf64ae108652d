"""German by the words' shapes (no dictionary here): formal "Sie" made informal "du"."""

from __future__ import annotations

import re

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
