"""Glossaries and do-not-translate terms as the camelCase documents the API and CLI give."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from threadwise.organizations.glossary_views import (
    GlossaryEntry,
    do_not_translate_terms,
    glossary_detail,
    glossary_info,
    glossary_list,
)
from threadwise.text.terms import Glossary, Term

SUPPORT = Glossary(
    "g-1", "org-a", "Support", "en", "es", (Term("ticket", "incidencia", True), Term("a", "b"))
)


def test_a_glossary_is_summarized_with_its_entry_count() -> None:
    assert glossary_info(SUPPORT).model_dump() == {
        "glossaryId": "g-1",
        "organizationId": "org-a",
        "name": "Support",
        "sourceLanguage": "en",
        "targetLanguage": "es",
        "default": False,
        "entryCount": 2,
    }
    assert glossary_list([SUPPORT, SUPPORT]).model_dump()["glossaries"][1]["glossaryId"] == "g-1"


def test_the_detail_lists_the_entries_in_order() -> None:
    detail = glossary_detail(SUPPORT).model_dump()
    assert detail["entryCount"] == 2
    assert detail["entries"] == [
        {"source": "ticket", "target": "incidencia", "caseSensitive": True},
        {"source": "a", "target": "b", "caseSensitive": False},
    ]


def test_do_not_translate_terms_give_their_source() -> None:
    terms = do_not_translate_terms([Term("Acme", "Acme", True)]).model_dump()
    assert terms == {"terms": [{"term": "Acme", "caseSensitive": True}]}


def test_a_misspelt_key_in_a_body_is_refused() -> None:
    with pytest.raises(ValidationError, match="caseSensitve"):
        GlossaryEntry.model_validate({"source": "a", "target": "b", "caseSensitve": True})
