"""What the ``/glossaries`` routes answer and ``threadwise glossaries``/``dnt`` print with
``--json``: glossaries and do-not-translate terms as camelCase documents."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from threadwise.organizations.glossary_rules import MAX_GLOSSARIES
from threadwise.text.terms import Glossary, Term


class _Body(BaseModel):
    # Also part of request bodies: a misspelt key ("caseSensitve") is refused, not ignored.
    model_config = ConfigDict(extra="forbid")


class GlossaryEntry(_Body):
    source: str = Field(description="The term, on one line (at most 200 characters).")
    target: str = Field(description="What it becomes in the target language.")
    caseSensitive: bool = False


class GlossaryInfo(BaseModel):
    glossaryId: str
    organizationId: str
    name: str
    sourceLanguage: str
    targetLanguage: str
    default: bool
    entryCount: int


class GlossaryDetail(GlossaryInfo):
    entries: list[GlossaryEntry]


class Glossaries(BaseModel):
    glossaries: list[GlossaryInfo] = Field(
        description=f"By name; an organization has at most {MAX_GLOSSARIES}."
    )


class DoNotTranslateTerm(_Body):
    term: str = Field(description="Kept as it is by translations (one line, ≤ 200 characters).")
    caseSensitive: bool = False


class DoNotTranslateTerms(BaseModel):
    terms: list[DoNotTranslateTerm]


def glossary_info(glossary: Glossary) -> GlossaryInfo:
    return GlossaryInfo(
        glossaryId=glossary.glossary_id,
        organizationId=glossary.organization,
        name=glossary.name,
        sourceLanguage=glossary.source_language,
        targetLanguage=glossary.target_language,
        default=glossary.default,
        entryCount=len(glossary.entries),
    )


def glossary_list(glossaries: Sequence[Glossary]) -> Glossaries:
    return Glossaries(glossaries=[glossary_info(glossary) for glossary in glossaries])


def glossary_detail(glossary: Glossary) -> GlossaryDetail:
    entries = [
        GlossaryEntry(source=e.source, target=e.target, caseSensitive=e.case_sensitive)
        for e in glossary.entries
    ]
    return GlossaryDetail(**glossary_info(glossary).model_dump(), entries=entries)


def do_not_translate_terms(terms: Sequence[Term]) -> DoNotTranslateTerms:
    return DoNotTranslateTerms(
        terms=[DoNotTranslateTerm(term=t.source, caseSensitive=t.case_sensitive) for t in terms]
    )
