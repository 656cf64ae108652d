"""What a glossary and the do-not-translate terms may hold, normalized before they are stored
(the refusals through the store are in ``test_glossaries``)."""

from __future__ import annotations

import pytest

from threadwise.organizations.glossary_rules import (
    GlossaryFields,
    checked_do_not_translate,
    checked_glossary,
    primary_language,
)
from threadwise.text.terms import Term


@pytest.mark.parametrize(
    ("tag", "expected"), [("es-ES", "es"), (" PT_br ", "pt"), ("en", "en"), ("", "")]
)
def test_the_primary_language_of_a_tag(tag: str, expected: str) -> None:
    assert primary_language(tag) == expected


def test_a_glossary_is_stripped_and_its_languages_reduced_to_their_primary_one() -> None:
    fields = checked_glossary(
        " Support ", "en-US", "es_MX", [Term(" ticket ", " incidencia", True)], default=True
    )
    assert fields == GlossaryFields(
        "Support", "en", "es", (Term("ticket", "incidencia", True),), True
    )


@pytest.mark.parametrize(
    "entries",
    [
        [Term("US", "EE. UU.", True), Term("us", "nosotros", True)],  # both case-sensitive
        [Term("order", "pedido"), Term("ticket", "incidencia")],
    ],
)
def test_sources_that_cannot_match_each_other_may_both_be_given(entries: list[Term]) -> None:
    assert checked_glossary("g", "en", "es", entries, False).entries == tuple(entries)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([Term("ticket", "a"), Term("ticket", "b")], "entries 1 and 2 .* 'ticket': keep one"),
        ([Term("Ticket", "a", True), Term("ticket", "b")], "but for case"),
        ([Term("ticket", "a"), Term("TICKET", "b", True)], "but for case"),
        ([Term("ticket", "a"), Term("Ticket", "b")], "but for case"),
    ],
)
def test_sources_that_would_match_the_same_text_are_refused(
    entries: list[Term], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        checked_glossary("g", "en", "es", entries, False)


def test_a_do_not_translate_term_becomes_itself() -> None:
    terms = checked_do_not_translate([Term(" Acme ", "ignored"), Term("API", "", True)])
    assert terms == (Term("Acme", "Acme"), Term("API", "API", True))
    assert checked_do_not_translate([]) == ()
