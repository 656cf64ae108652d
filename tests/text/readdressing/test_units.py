"""A line's units as the analyzer read them, and the verb forms planned for them."""

from __future__ import annotations

from threadwise.text.readdressing.units import Form, Unit, clauses, verb_form, vowel_after


def unit(surface: str, *readings: str, hyphened: bool = False) -> Unit:
    return Unit(surface, list(readings), 0, hyphened)


def test_what_a_unit_may_be() -> None:
    pode = unit("Pode", "poder<vbmod><pri><p3><sg>")
    cita = unit("cita", "cita<n><f><sg>", "citar<vblex><pri><p3><sg>")
    assert pode.is_verb and pode.only_verb and pode.key == "pode"
    assert cita.is_verb and not cita.only_verb and cita.could_be_subject
    assert not unit("usted", "usted<prn><tn><mf><sg>").could_be_subject  # the reader
    assert not unit(",", ",<cm>").is_word


def test_clauses_start_after_punctuation_and_conjunctions() -> None:
    units = [
        unit("Si", "si<cnjadv>"),
        unit("quieres", "querer<vblex><pri><p2><sg>"),
        unit(",", ",<cm>"),
        unit("llámanos", "llamar<vblex><imp><p2><sg>+nos<prn><enc><p1><mf><pl>"),
    ]
    assert clauses(units) == [1, 1, 3, 3]


def test_a_verb_form_changes_person_and_keeps_its_clitics() -> None:
    llamanos = unit("llámanos", "llamar<vblex><imp><p2><sg>+nos<prn><enc><p1><mf><pl>")
    assert verb_form(llamanos, "<p2><sg>", "<p3><sg>", True) == Form(
        "llamar<vblex><imp><p3><sg>+nos<prn><enc><p1><mf><pl>"
    )
    assert verb_form(llamanos, "<p2><sg>", "<p3><sg>", False) is None  # not an imperative
    assert verb_form(llamanos, "<p3><sg>", "<p2><sg>", None) is None  # not that person


def test_the_lemma_is_lower_cased_at_the_start_of_a_line() -> None:
    pode = unit("Pode", "Poder<vbmod><pri><p3><sg>")
    assert verb_form(pode, "<p3><sg>", "<p2><sg>", None) == Form("poder<vbmod><pri><p2><sg>")


def test_a_vowel_after_a_space() -> None:
    assert vowel_after("te aider", 2) and vowel_after("te hâte", 2)
    assert not vowel_after("te voir", 2) and not vowel_after("te", 2)
