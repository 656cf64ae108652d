"""An organization's glossaries and do-not-translate terms as database rows: read, written,
and the tenant's row held while they change."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from threadwise.db import tables
from threadwise.organizations.glossary_rules import GlossaryFields
from threadwise.organizations.scope import require_tenant
from threadwise.text.terms import Glossary, Term


class UnknownGlossaryError(LookupError):
    def __init__(self, glossary_id: str) -> None:
        super().__init__(f"This organization has no glossary {glossary_id[:64]!r}.")
        self.glossary_id = glossary_id


def lock_tenant(session: Session, tenant: str) -> None:
    """Check that the tenant exists, and hold its row until the transaction ends: writers one
    at a time keep an organization's count of glossaries and its one default a pair true."""
    require_tenant(session, tenant)
    session.execute(
        select(tables.Tenant.name)
        .where(tables.Tenant.name == tenant)
        .with_for_update(key_share=True)  # clients may still be added meanwhile
    )


def glossary_row(
    session: Session, tenant: str, organization: str, glossary_id: str
) -> tables.Glossary:
    row = session.get(tables.Glossary, glossary_id)
    if row is None or (row.tenant, row.organization_id) != (tenant, organization):
        raise UnknownGlossaryError(glossary_id)
    return row


def write_glossary(
    session: Session, row: tables.Glossary, fields: GlossaryFields, now: datetime
) -> None:
    """Set the glossary's fields and add its entries; a default unsets its pair's other one."""
    row.name = fields.name
    row.source_language = fields.source_language
    row.target_language = fields.target_language
    row.is_default = fields.default
    row.updated_at = now
    session.add_all(
        tables.GlossaryEntry(
            glossary_id=row.glossary_id,
            position=position,
            source=entry.source,
            target=entry.target,
            case_sensitive=entry.case_sensitive,
        )
        for position, entry in enumerate(fields.entries)
    )
    if fields.default:
        session.execute(
            update(tables.Glossary)
            .where(
                tables.Glossary.tenant == row.tenant,
                tables.Glossary.organization_id == row.organization_id,
                tables.Glossary.source_language == fields.source_language,
                tables.Glossary.target_language == fields.target_language,
                tables.Glossary.glossary_id != row.glossary_id,
                tables.Glossary.is_default.is_(True),
            )
            .values(is_default=False, updated_at=now)
        )


def read_glossaries(session: Session, tenant: str, organization: str) -> list[Glossary]:
    rows = session.scalars(
        select(tables.Glossary).where(
            tables.Glossary.tenant == tenant,
            tables.Glossary.organization_id == organization,
        )
    ).all()
    entries = read_entries(session, [row.glossary_id for row in rows])
    glossaries = [to_glossary(row, entries[row.glossary_id]) for row in rows]
    # Sorted here, not by the database: SQLite and PostgreSQL collate differently.
    glossaries.sort(key=lambda g: (g.name.casefold(), g.name, g.glossary_id))
    return glossaries


def read_entries(session: Session, glossary_ids: Sequence[str]) -> dict[str, tuple[Term, ...]]:
    found: dict[str, list[Term]] = {glossary_id: [] for glossary_id in glossary_ids}
    if glossary_ids:
        rows = session.scalars(
            select(tables.GlossaryEntry)
            .where(tables.GlossaryEntry.glossary_id.in_(glossary_ids))
            .order_by(tables.GlossaryEntry.glossary_id, tables.GlossaryEntry.position)
        )
        for row in rows:
            found[row.glossary_id].append(Term(row.source, row.target, row.case_sensitive))
    return {glossary_id: tuple(terms) for glossary_id, terms in found.items()}


def to_glossary(row: tables.Glossary, entries: tuple[Term, ...]) -> Glossary:
    return Glossary(
        glossary_id=row.glossary_id,
        organization=row.organization_id,
        name=row.name,
        source_language=row.source_language,
        target_language=row.target_language,
        entries=entries,
        default=row.is_default,
        created_at=row.created_at,
    )


def read_do_not_translate(session: Session, tenant: str, organization: str) -> list[Term]:
    rows = session.scalars(
        select(tables.DoNotTranslateTerm).where(
            tables.DoNotTranslateTerm.tenant == tenant,
            tables.DoNotTranslateTerm.organization_id == organization,
        )
    )
    terms = [Term(row.term, row.term, row.case_sensitive) for row in rows]
    terms.sort(key=lambda term: (term.source.casefold(), term.source))
    return terms
