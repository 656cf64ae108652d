"""Each organization's translation terms: its glossaries (a term's translation for one language
pair) and its do-not-translate terms, stored in the database.

What a replica reads is cached for ``cache_seconds``: a change takes effect at once on the
replica that made it and within that time on the others.
"""

from __future__ import annotations

import builtins
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import anyio.to_thread
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from threadwise.auth.tenancy import tenant_name
from threadwise.db import tables
from threadwise.db.database import Database
from threadwise.serving.policies import _organization_id, _require_tenant
from threadwise.text.languages import TRANSLATION_LANGUAGES
from threadwise.text.terms import Glossary, Term

MAX_GLOSSARIES = 100  # an organization's
MAX_ENTRIES = 1000  # a glossary's
MAX_DO_NOT_TRANSLATE = 10_000  # an organization's
MAX_NAME = 200
MAX_TERM = 200  # a source, target or do-not-translate term
# Organization ids come from requests: a bound keeps a flood of them from filling memory.
_MAX_CACHED = 10_000


class UnknownGlossaryError(LookupError):
    def __init__(self, glossary_id: str) -> None:
        super().__init__(f"This organization has no glossary {glossary_id[:64]!r}.")
        self.glossary_id = glossary_id


@dataclass(frozen=True)
class OrganizationTerms:
    """What an organization's translations apply: its glossaries and do-not-translate terms."""

    glossaries: tuple[Glossary, ...] = ()  # ordered by name
    do_not_translate: tuple[Term, ...] = ()

    def glossary(self, glossary_id: str) -> Glossary | None:
        return next((g for g in self.glossaries if g.glossary_id == glossary_id), None)

    def default_for(self, source: str, target: str) -> Glossary | None:
        """The default glossary from ``source`` to ``target`` (language tags: "es-ES")."""
        pair = (_primary(source), _primary(target))
        return next(
            (
                g
                for g in self.glossaries
                if g.default and (g.source_language, g.target_language) == pair
            ),
            None,
        )


@dataclass(frozen=True)
class _Fields:
    """A glossary's fields, checked and normalized."""

    name: str
    source_language: str
    target_language: str
    entries: tuple[Term, ...]
    default: bool


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
        self.cache_seconds = cache_seconds
        self.clock = clock
        self._cache: dict[tuple[str, str], tuple[float, OrganizationTerms]] = {}
        self._lock = threading.Lock()

    async def for_translation(self, tenant: str, organization: str) -> OrganizationTerms:
        """The organization's terms, from the cache when fresh enough."""
        key = (tenant, organization)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] > self.clock():
            return cached[1]
        terms = await anyio.to_thread.run_sync(self._read, tenant, organization)
        with self._lock:
            if key not in self._cache and len(self._cache) >= _MAX_CACHED:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = (self.clock() + self.cache_seconds, terms)
        return terms

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
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        fields = _checked(name, source_language, target_language, entries, default)
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            _lock_tenant(session, tenant)
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
            _write(session, row, fields, now)
        self._forget(tenant, organization)
        return _glossary(row, fields.entries)

    def get(self, tenant: str, organization: str, glossary_id: str) -> Glossary:
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        with self.database.session() as session:
            _require_tenant(session, tenant)
            row = _row(session, tenant, organization, glossary_id)
            return _glossary(row, _entries(session, [row.glossary_id])[row.glossary_id])

    def list(self, tenant: str, organization: str) -> builtins.list[Glossary]:
        """The organization's glossaries, by name."""
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        with self.database.session() as session:
            _require_tenant(session, tenant)
            return _glossaries(session, tenant, organization)

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
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        fields = _checked(name, source_language, target_language, entries, default)
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            _lock_tenant(session, tenant)
            row = _row(session, tenant, organization, glossary_id)
            session.execute(
                delete(tables.GlossaryEntry).where(
                    tables.GlossaryEntry.glossary_id == row.glossary_id
                )
            )
            _write(session, row, fields, now)
        self._forget(tenant, organization)
        return _glossary(row, fields.entries)

    def delete(self, tenant: str, organization: str, glossary_id: str) -> None:
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        with self.database.session() as session, session.begin():
            _require_tenant(session, tenant)
            session.delete(_row(session, tenant, organization, glossary_id))  # entries cascade
        self._forget(tenant, organization)

    def do_not_translate(self, tenant: str, organization: str) -> builtins.list[Term]:
        """The organization's do-not-translate terms (each its own target), in order."""
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        with self.database.session() as session:
            _require_tenant(session, tenant)
            return _do_not_translate(session, tenant, organization)

    def set_do_not_translate(self, tenant: str, organization: str, terms: Sequence[Term]) -> None:
        """Make ``terms`` (their ``source``) the organization's do-not-translate terms."""
        tenant, organization = tenant_name(tenant), _organization_id(organization)
        wanted = _checked_do_not_translate(terms)
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            _lock_tenant(session, tenant)
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
                tuple(_glossaries(session, tenant, organization)),
                tuple(_do_not_translate(session, tenant, organization)),
            )

    def _forget(self, tenant: str, organization: str) -> None:
        with self._lock:
            self._cache.pop((tenant, organization), None)


def _lock_tenant(session: Session, tenant: str) -> None:
    """Check that the tenant exists, and hold its row until the transaction ends: writers one
    at a time keep an organization's count of glossaries and its one default a pair true."""
    _require_tenant(session, tenant)
    session.execute(
        select(tables.Tenant.name)
        .where(tables.Tenant.name == tenant)
        .with_for_update(key_share=True)  # clients may still be added meanwhile
    )


def _row(session: Session, tenant: str, organization: str, glossary_id: str) -> tables.Glossary:
    row = session.get(tables.Glossary, glossary_id)
    if row is None or (row.tenant, row.organization_id) != (tenant, organization):
        raise UnknownGlossaryError(glossary_id)
    return row


def _write(session: Session, row: tables.Glossary, fields: _Fields, now: datetime) -> None:
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


def _glossaries(session: Session, tenant: str, organization: str) -> list[Glossary]:
    rows = session.scalars(
        select(tables.Glossary).where(
            tables.Glossary.tenant == tenant,
            tables.Glossary.organization_id == organization,
        )
    ).all()
    entries = _entries(session, [row.glossary_id for row in rows])
    glossaries = [_glossary(row, entries[row.glossary_id]) for row in rows]
    # Sorted here, not by the database: SQLite and PostgreSQL collate differently.
    glossaries.sort(key=lambda g: (g.name.casefold(), g.name, g.glossary_id))
    return glossaries


def _entries(session: Session, glossary_ids: Sequence[str]) -> dict[str, tuple[Term, ...]]:
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


def _glossary(row: tables.Glossary, entries: tuple[Term, ...]) -> Glossary:
    return Glossary(
        glossary_id=row.glossary_id,
        organization=row.organization_id,
        name=row.name,
        source_language=row.source_language,
        target_language=row.target_language,
        entries=entries,
        default=row.is_default,
    )


def _do_not_translate(session: Session, tenant: str, organization: str) -> list[Term]:
    rows = session.scalars(
        select(tables.DoNotTranslateTerm).where(
            tables.DoNotTranslateTerm.tenant == tenant,
            tables.DoNotTranslateTerm.organization_id == organization,
        )
    )
    terms = [Term(row.term, row.term, row.case_sensitive) for row in rows]
    terms.sort(key=lambda term: (term.source.casefold(), term.source))
    return terms


# --- validation ------------------------------------------------------------------------------


def _checked(
    name: str,
    source_language: str,
    target_language: str,
    entries: Sequence[Term],
    default: bool,
) -> _Fields:
    """The glossary's fields normalized, or ``ValueError`` saying what to fix."""
    name = _text(name, "A glossary's name", MAX_NAME)
    source = _language(source_language, "source")
    target = _language(target_language, "target")
    if source == target:
        raise ValueError(
            f"A glossary's source and target languages must differ, got {source!r} for both."
        )
    if not 1 <= len(entries) <= MAX_ENTRIES:
        raise ValueError(
            f"A glossary has 1 to {MAX_ENTRIES} entries, got {len(entries)}"
            + (": give at least one." if not entries else ": split it in several.")
        )
    checked = tuple(
        Term(
            _text(entry.source, f"Glossary entry {number}'s source", MAX_TERM),
            _text(entry.target, f"Glossary entry {number}'s target", MAX_TERM),
            entry.case_sensitive,
        )
        for number, entry in enumerate(entries, start=1)
    )
    _refuse_repeats(checked, "Glossary entries {} and {} both have the source {!r}")
    return _Fields(name, source, target, checked, default)


def _checked_do_not_translate(terms: Sequence[Term]) -> tuple[Term, ...]:
    if len(terms) > MAX_DO_NOT_TRANSLATE:
        raise ValueError(
            f"An organization has at most {MAX_DO_NOT_TRANSLATE} do-not-translate terms, got "
            f"{len(terms)}."
        )
    checked = []
    for number, term in enumerate(terms, start=1):
        text = _text(term.source, f"Do-not-translate term {number}", MAX_TERM)
        checked.append(Term(text, text, term.case_sensitive))
    _refuse_repeats(checked, "Do-not-translate terms {} and {} are both {!r}")
    return tuple(checked)


def _refuse_repeats(terms: Sequence[Term], clash: str) -> None:
    """``ValueError`` for two terms with the same source: the same text, or the same but for
    case where either one ignores case (it would match the other's text too)."""
    exact: dict[str, int] = {}  # case-sensitive sources
    folded: dict[str, int] = {}  # case-insensitive sources, case-folded
    folded_exact: dict[str, int] = {}  # case-sensitive sources, case-folded
    for number, term in enumerate(terms, start=1):
        key = term.source.casefold()
        if term.case_sensitive:
            earlier = exact.get(term.source, folded.get(key))
        else:
            earlier = folded.get(key, folded_exact.get(key))
        if earlier is not None:
            if terms[earlier - 1].source == term.source:
                raise ValueError(clash.format(earlier, number, term.source) + ": keep one.")
            raise ValueError(
                clash.format(earlier, number, term.source)
                + " but for case, and one ignores case (so it matches the other too): keep "
                "one, or make both case-sensitive."
            )
        if term.case_sensitive:
            exact[term.source] = number
            folded_exact.setdefault(key, number)
        else:
            folded[key] = number


def _text(value: str, what: str, limit: int) -> str:
    text = value.strip()
    if not text:
        raise ValueError(f"{what} must not be empty.")
    if len(text) > limit:
        raise ValueError(f"{what} has at most {limit} characters, got {len(text)}.")
    if len(text.splitlines()) > 1:
        raise ValueError(f"{what} must be on one line, got {text[:60]!r}.")
    return text


def _language(tag: str, which: str) -> str:
    code = _primary(tag)
    if code not in TRANSLATION_LANGUAGES:
        raise ValueError(
            f"A glossary's {which} language is one of {', '.join(TRANSLATION_LANGUAGES)} "
            f"(a region such as 'es-ES' is accepted), got {tag[:20]!r}."
        )
    return code


def _primary(tag: str) -> str:
    """A language tag's primary language: ``es-ES`` → ``es``."""
    return tag.strip().replace("_", "-").split("-")[0].lower()
