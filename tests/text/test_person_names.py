from __future__ import annotations

import pytest

from threadwise.engines.apertium import ApertiumEngine
from threadwise.text.person_names import capitalized_words, find_people, tags_of, word_tags


def test_readings_become_tags() -> None:
    assert tags_of("Daniel<np><ant><m><sg>") == {"ant"}
    assert tags_of("Grace<n><sg>/Grace<np><ant><f><sg>") == {"word", "ant"}
    assert tags_of("Paris<np><loc>") == {"loc"}
    assert tags_of("*Okafor") == frozenset()


TAGS = {
    "Daniel": frozenset({"ant"}),
    "Okafor": frozenset(),
    "Please": frozenset({"word"}),
    "Thanks": frozenset({"word"}),
    "Paris": frozenset({"loc", "ant"}),
    "Brandt": frozenset(),
    "Luis": frozenset({"ant"}),
    "NIR": frozenset(),
    "Carmen": frozenset({"ant"}),
    "Delgado": frozenset({"word"}),
    "Adaeze": frozenset(),
    "Nwosu": frozenset(),
    "Julien": frozenset({"ant"}),
    "Sony": frozenset({"np", "ant"}),
    "March": frozenset({"word", "cog", "ant"}),
    "Meine": frozenset(),
    "Bestellnummer": frozenset(),
    "Danke": frozenset(),
    "Stefan": frozenset({"ant"}),
    "Maria": frozenset({"ant", "loc", "word"}),
    "Gonzalez": frozenset({"ant", "cog"}),
    "Anna": frozenset({"ant", "loc"}),
    "Schmidt": frozenset(),
    "Frau": frozenset(),
    "Claire": frozenset({"ant", "word"}),
    "Dubois": frozenset({"ant", "cog"}),
    "Grace": frozenset({"ant", "word"}),
    "Period": frozenset({"word"}),
    "Lena": frozenset({"ant", "loc"}),
    "Koch": frozenset(),
    "Von": frozenset({"ant"}),
    "Drei": frozenset(),
    "Bis": frozenset(),
    "Ortega": frozenset({"cog"}),
}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Please ask my husband Daniel Okafor.", ["Daniel Okafor"]),
        ("Please Daniel, call me.", ["Daniel"]),
        ("Ask for Ms. Brandt at the desk.", ["Ms. Brandt"]),
        # Two words no dictionary knows: a name from outside the dictionaries' languages.
        ("My colleague Adaeze Nwosu will call.", ["Adaeze Nwosu"]),
        # The person spoken to; a brand; a month; German nouns; German thanks.
        ("Thanks Julien! My Sony broke in March.", []),
        ("Meine Bestellnummer fehlt. Danke Stefan!", []),
        ("It was sent from Paris.", []),
        ("Thanks Luis, and say hi to Carmen Delgado.", ["Carmen Delgado"]),
        ("Luis Daniel Okafor", ["Daniel Okafor"]),
        ("Send my NIR to Carmen.", ["Carmen"]),
        # A first name that is also a place and a word, before a surname: the whole name.
        ("I spoke with Maria Gonzalez from billing.", ["Maria Gonzalez"]),
        # A title without a full stop; German words no name is made of.
        ("Frau Anna Schmidt hat es bestätigt.", ["Frau Anna Schmidt"]),
        ("Schreiben Sie mir.", []),
        # Invisible characters inside a name are part of it.
        ("The parcel is for Mar\u200bia Gonzalez.", ["Mar\u200bia Gonzalez"]),
    ],
)
def test_names_are_runs_of_capitalized_words_with_a_name_in_them(
    text: str, names: list[str]
) -> None:
    found = find_people(text, TAGS, participants=["Luis Ortega"])
    assert [f.value for f in found] == names
    assert all(text[f.start : f.end] == f.value and f.kind == "PERSON" for f in found)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("hi my name is maria gonzalez and i ordered a sofa", ["maria gonzalez"]),
        ("THE ACCOUNT IS UNDER MARIA GONZALEZ, PLEASE CHECK", ["MARIA GONZALEZ"]),
        ("bonjour, claire dubois ici", ["claire dubois"]),
        ("ask daniel okafor or ANNA SCHMIDT", []),  # surnames no dictionary knows...
        ("ich bin lena koch", ["lena koch"]),  # ...are taken after an introduction
        # First names that are words before a word; a particle; a participant's own name.
        ("the grace period ends soon", []),
        ("von drei bis fünf", []),
        ("ask luis ortega", []),
        ("my name is maria gonzalez, ask claire dubois too", ["maria gonzalez", "claire dubois"]),
    ],
)
def test_names_in_lower_case_or_capitals_are_a_first_name_and_surnames(
    text: str, names: list[str]
) -> None:
    found = find_people(text, TAGS, participants=["Luis Ortega"])
    assert [f.value for f in found] == names
    assert all(text[f.start : f.end] == f.value for f in found)


def test_the_words_looked_up_are_capitalized_as_names_are() -> None:
    text = "ask maria GONZALEZ or Mar\u200bia, \uff24\uff21\uff36\uff29\uff24"
    assert {"Maria", "Gonzalez", "GONZALEZ", "David", "DAVID"} <= capitalized_words(text)


def test_apertiums_dictionaries_know_first_names_in_lower_case_and_capitals(
    apertium: ApertiumEngine,
) -> None:
    text = "hola, me llamo josé martínez. THE CARD IS UNDER DAVID CHEN, bonjour claire dubois"
    found = find_people(text, word_tags(apertium, capitalized_words(text)))
    assert [f.value for f in found] == ["josé martínez", "DAVID CHEN", "claire dubois"]


def test_apertiums_dictionaries_know_first_names_in_several_languages() -> None:
    engine = ApertiumEngine(["en", "es", "fr", "pt"])
    try:
        text = "Mi marido Rafael Ortega y João Pereira llamaron; ask Grace Adeyemi in London."
        tags = word_tags(engine, capitalized_words(text))
        found = [f.value for f in find_people(text, tags)]
    finally:
        engine.close()
    assert found == ["Rafael Ortega", "João Pereira", "Grace Adeyemi"]
