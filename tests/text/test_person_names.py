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
    ],
)
def test_names_are_runs_of_capitalized_words_with_a_name_in_them(
    text: str, names: list[str]
) -> None:
    found = find_people(text, TAGS, participants=["Luis Ortega"])
    assert [f.value for f in found] == names
    assert all(text[f.start : f.end] == f.value and f.kind == "PERSON" for f in found)


def test_apertiums_dictionaries_know_first_names_in_several_languages() -> None:
    engine = ApertiumEngine(["en", "es", "fr", "pt"])
    try:
        text = "Mi marido Rafael Ortega y João Pereira llamaron; ask Grace Adeyemi in London."
        tags = word_tags(engine, capitalized_words(text))
        found = [f.value for f in find_people(text, tags)]
    finally:
        engine.close()
    assert found == ["Rafael Ortega", "João Pereira", "Grace Adeyemi"]
