"""Each organization's translation terms: its glossaries (a term's translation for one language
pair) and its do-not-translate terms, stored in the database.

What a replica reads is cached for ``cache_seconds``: a change takes effect at once on the
replica that made it and within that time on the others.
"""

from __future__ import annotations

import builtins
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, func, select

from threadwise.auth.tenancy import tenant_name
from threadwise.db import tables
from threadwise.db.database import Database
from threadwise.organizations.glossary_rows import (
    glossary_row,
    lock_tenant,
    read_do_not_translate,
    read_entries,
    read_glossaries,
    to_glossary,
    write_glossary,
)
from threadwise.organizations.glossary_rules import (
    MAX_GLOSSARIES,
    checked_do_not_translate,
    checked_glossary,
    primary_language,
)
from threadwise.organizations.scope import organization_id, require_tenant
from threadwise.text.terms import Glossary, Term
from threadwise.ttl_cache import TtlCache


@dataclass(frozen=True)
class OrganizationTerms:
    """What an organization's translations apply: its glossaries and do-not-translate terms."""

    glossaries: tuple[Glossary, ...] = ()  # ordered by name
    do_not_translate: tuple[Term, ...] = ()

    def glossary(self, glossary_id: str) -> Glossary | None:
        return next((g for g in self.glossaries if g.glossary_id == glossary_id), None)

    def default_for(self, source: str, target: str) -> Glossary | None:
        """The default glossary from ``source`` to ``target`` (language tags: "es-ES")."""
        pair = (primary_language(source), primary_language(target))
        return next(
            (
                g
                for g in self.glossaries
                if g.default and (g.source_language, g.target_language) == pair
            ),
            None,
        )


class GlossaryStore:
    """Organizations' glossaries and do-not-translate terms, read from the database and
    cached per replica for ``cache_seconds``; the synchronous methods manage them (the REST
    API and ``threadwise glossaries``, ``threadwise dnt``)."""

    def __init__(
        self,
        database: Database,
        cache_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.database = database
        self._cache: TtlCache[tuple[str, str], OrganizationTerms] = TtlCache(
            cache_seconds, clock=clock
        )

    async def for_translation(self, tenant: str, organization: str) -> OrganizationTerms:
        """The organization's terms, from the cache when fresh enough."""
        return await self._cache.read_through(
            (tenant, organization), lambda: self._read(tenant, organization)
        )

    # --- management ----------------------------------------------------------------------

    def create(
        self,
        tenant: str,
        organization: str,
        name: str,
        source_language: str,
        target_language: str,
        entries: Sequence[Term],
        default: bool = False,
    ) -> Glossary:
        tenant, organization = tenant_name(tenant), organization_id(organization)
        fields = checked_glossary(name, source_language, target_language, entries, default)
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            lock_tenant(session, tenant)
            count = session.scalar(
                select(func.count())
                .select_from(tables.Glossary)
                .where(
                    tables.Glossary.tenant == tenant,
                    tables.Glossary.organization_id == organization,
                )
            )
            if count is not None and count >= MAX_GLOSSARIES:
                raise ValueError(
                    f"An organization has at most {MAX_GLOSSARIES} glossaries and "
                    f"{organization!r} has {count}: delete one first."
                )
            row = tables.Glossary(
                glossary_id=str(uuid.uuid4()),
                tenant=tenant,
                organization_id=organization,
                created_at=now,
            )
            session.add(row)
            write_glossary(session, row, fields, now)
        self._forget(tenant, organization)
        return to_glossary(row, fields.entries)

    def get(self, tenant: str, organization: str, glossary_id: str) -> Glossary:
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session:
            require_tenant(session, tenant)
            row = glossary_row(session, tenant, organization, glossary_id)
            return to_glossary(row, read_entries(session, [row.glossary_id])[row.glossary_id])

    def list(self, tenant: str, organization: str) -> builtins.list[Glossary]:
        """The organization's glossaries, by name."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session:
            require_tenant(session, tenant)
            return read_glossaries(session, tenant, organization)

    def replace(
        self,
        tenant: str,
        organization: str,
        glossary_id: str,
        name: str,
        source_language: str,
        target_language: str,
        entries: Sequence[Term],
        default: bool,
    ) -> Glossary:
        """Replace every field and entry of the glossary; its id stays."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        fields = checked_glossary(name, source_language, target_language, entries, default)
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            lock_tenant(session, tenant)
            row = glossary_row(session, tenant, organization, glossary_id)
            session.execute(
                delete(tables.GlossaryEntry).where(
                    tables.GlossaryEntry.glossary_id == row.glossary_id
                )
            )
            write_glossary(session, row, fields, now)
        self._forget(tenant, organization)
        return to_glossary(row, fields.entries)

    def delete(self, tenant: str, organization: str, glossary_id: str) -> None:
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session, session.begin():
            require_tenant(session, tenant)
            session.delete(
                glossary_row(session, tenant, organization, glossary_id)
            )  # entries cascade
        self._forget(tenant, organization)

    def do_not_translate(self, tenant: str, organization: str) -> builtins.list[Term]:
        """The organization's do-not-translate terms (each its own target), in order."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session:
            require_tenant(session, tenant)
            return read_do_not_translate(session, tenant, organization)

    def set_do_not_translate(self, tenant: str, organization: str, terms: Sequence[Term]) -> None:
        """Make ``terms`` (their ``source``) the organization's do-not-translate terms."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        wanted = checked_do_not_translate(terms)
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            lock_tenant(session, tenant)
            stored = {
                row.term: row
                for row in session.scalars(
                    select(tables.DoNotTranslateTerm).where(
                        tables.DoNotTranslateTerm.tenant == tenant,
                        tables.DoNotTranslateTerm.organization_id == organization,
                    )
                )
            }
            kept = {term.source for term in wanted}
            for text, row in stored.items():
                if text not in kept:
                    session.delete(row)
            for term in wanted:
                kept_row = stored.get(term.source)
                if kept_row is not None:  # it keeps when it was added
                    kept_row.case_sensitive = term.case_sensitive
                    continue
                session.add(
                    tables.DoNotTranslateTerm(
                        tenant=tenant,
                        organization_id=organization,
                        term=term.source,
                        case_sensitive=term.case_sensitive,
                        created_at=now,
                    )
                )
        self._forget(tenant, organization)

    def _read(self, tenant: str, organization: str) -> OrganizationTerms:
        with self.database.session() as session:
            return OrganizationTerms(
                tuple(read_glossaries(session, tenant, organization)),
                tuple(read_do_not_translate(session, tenant, organization)),
            )

    def _forget(self, tenant: str, organization: str) -> None:
        self._cache.forget((tenant, organization))
