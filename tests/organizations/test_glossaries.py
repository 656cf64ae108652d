"""Organizations' glossaries and do-not-translate terms: stored, cached per replica, and refused
with a reason."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.clock import ManualClock
from threadwise.db.database import Database
from threadwise.db.tables import DoNotTranslateTerm, GlossaryEntry, Tenant
from threadwise.organizations import glossaries
from threadwise.organizations.glossaries import GlossaryStore, OrganizationTerms
from threadwise.organizations.glossary_rows import UnknownGlossaryError
from threadwise.text.terms import Glossary, Term

ENTRIES = (Term("ticket", "incidencia"), Term("Optave", "Optave", case_sensitive=True))


@pytest.fixture
def store(database: Database, clock: ManualClock) -> GlossaryStore:
    return GlossaryStore(database, cache_seconds=5, clock=clock)


def create(
    store: GlossaryStore,
    tenant: str,
    name: str = "Support",
    *,
    source_language: str = "en",
    target_language: str = "es",
    entries: Sequence[Term] = ENTRIES,
    default: bool = False,
) -> Glossary:
    """A glossary of organization org-a."""
    return store.create(
        tenant, "org-a", name, source_language, target_language, entries, default=default
    )


def test_an_organization_with_nothing_stored_has_no_terms(
    store: GlossaryStore, tenant: str
) -> None:
    assert asyncio.run(store.for_translation(tenant, "org-a")) == OrganizationTerms()
    assert store.list(tenant, "org-a") == []
    assert store.do_not_translate(tenant, "org-a") == []


def test_round_trip(store: GlossaryStore, tenant: str) -> None:
    created = store.create(
        tenant,
        " org-a ",
        "  Support  ",
        "en-US",
        "ES_es",
        [Term(" ticket ", " incidencia "), ENTRIES[1]],
        default=True,
    )
    assert created == Glossary(
        glossary_id=created.glossary_id,
        organization="org-a",
        name="Support",
        source_language="en",
        target_language="es",
        entries=ENTRIES,
        default=True,
    )
    assert uuid.UUID(created.glossary_id)
    assert store.get(tenant.upper(), "org-a", created.glossary_id) == created
    assert store.list(tenant, "org-a") == [created]
    terms = asyncio.run(store.for_translation(tenant, "org-a"))
    assert terms.glossaries == (created,)
    assert terms.glossary(created.glossary_id) == created
    assert terms.glossary("nope") is None
    assert terms.default_for("en-GB", "es") == created
    assert terms.default_for("es", "en") is None
    # Another replica reads the same.
    other = GlossaryStore(store.database)
    assert asyncio.run(other.for_translation(tenant, "org-a")) == terms


def test_listed_by_name_with_entries_in_order(store: GlossaryStore, tenant: str) -> None:
    many = tuple(Term(f"term {n}", f"término {n}") for n in range(30, 0, -1))
    zeta = create(store, tenant, "zeta", entries=many)
    alpha = create(store, tenant, "Alpha", target_language="fr")
    beta = create(store, tenant, "beta", target_language="de")
    assert store.list(tenant, "org-a") == [alpha, beta, zeta]
    assert store.get(tenant, "org-a", zeta.glossary_id).entries == many


def test_one_default_a_language_pair(store: GlossaryStore, tenant: str) -> None:
    first = create(store, tenant, "first", default=True)
    french = create(store, tenant, "french", target_language="fr", default=True)
    second = create(store, tenant, "second", default=True)
    assert store.get(tenant, "org-a", first.glossary_id).default is False
    assert store.get(tenant, "org-a", french.glossary_id).default is True  # another pair
    terms = asyncio.run(store.for_translation(tenant, "org-a"))
    assert terms.default_for("en", "es") == second
    assert terms.default_for("en", "fr") == french
    # Made the default again, or moved into a pair that has one: the other stops being one.
    store.replace(tenant, "org-a", first.glossary_id, "first", "en", "es", ENTRIES, True)
    assert store.get(tenant, "org-a", second.glossary_id).default is False
    moved = store.replace(tenant, "org-a", second.glossary_id, "second", "en", "fr", ENTRIES, True)
    assert [g.name for g in store.list(tenant, "org-a") if g.default] == ["first", "second"]
    assert asyncio.run(store.for_translation(tenant, "org-a")).default_for("en", "fr") == moved


def test_replace_keeps_the_id_and_changes_everything_else(
    store: GlossaryStore, tenant: str
) -> None:
    created = create(store, tenant)
    entries = [Term("refund", "reembolso")]
    replaced = store.replace(
        tenant, "org-a", created.glossary_id, "Billing", "en", "pt-BR", entries, False
    )
    assert replaced == Glossary(created.glossary_id, "org-a", "Billing", "en", "pt", (entries[0],))
    assert store.list(tenant, "org-a") == [replaced]


def test_delete(database: Database, store: GlossaryStore, tenant: str) -> None:
    kept = create(store, tenant, "kept")
    gone = create(store, tenant, "gone")
    store.delete(tenant, "org-a", gone.glossary_id)
    assert store.list(tenant, "org-a") == [kept]
    with database.session() as session:
        left = select(func.count()).where(GlossaryEntry.glossary_id == gone.glossary_id)
        assert session.scalar(left) == 0  # the entries went with it
    with pytest.raises(UnknownGlossaryError, match="no glossary"):
        store.delete(tenant, "org-a", gone.glossary_id)


def test_a_glossary_is_only_its_organizations(
    database: Database, store: GlossaryStore, tenant: str
) -> None:
    created = create(store, tenant)
    with database.session() as session, session.begin():
        session.add(Tenant(name=f"{tenant}x", created_at=datetime.now(UTC)))
    elsewhere = [(tenant, "org-b"), (f"{tenant}x", "org-a")]
    for other_tenant, organization in elsewhere:
        with pytest.raises(UnknownGlossaryError) as refused:
            store.get(other_tenant, organization, created.glossary_id)
        assert refused.value.glossary_id == created.glossary_id
        with pytest.raises(UnknownGlossaryError):
            store.delete(other_tenant, organization, created.glossary_id)
        with pytest.raises(UnknownGlossaryError):
            store.replace(
                other_tenant, organization, created.glossary_id, "x", "en", "es", ENTRIES, False
            )
        assert store.list(other_tenant, organization) == []
    assert store.get(tenant, "org-a", created.glossary_id) == created


def test_do_not_translate(database: Database, store: GlossaryStore, tenant: str) -> None:
    store.set_do_not_translate(tenant, "org-a", [Term("Optave", "", True), Term(" acme ", "")])
    expected = [Term("acme", "acme"), Term("Optave", "Optave", True)]  # by term, case aside
    assert store.do_not_translate(tenant, "org-a") == expected
    assert asyncio.run(store.for_translation(tenant, "org-a")).do_not_translate == tuple(expected)

    def added(term: str) -> datetime | None:
        with database.session() as session:
            return session.scalar(
                select(DoNotTranslateTerm.created_at).where(
                    DoNotTranslateTerm.tenant == tenant, DoNotTranslateTerm.term == term
                )
            )

    first = added("acme")
    store.set_do_not_translate(tenant, "org-a", [Term("acme", "acme", True), Term("Zed", "")])
    assert store.do_not_translate(tenant, "org-a") == [
        Term("acme", "acme", True),
        Term("Zed", "Zed"),
    ]
    assert added("acme") == first  # kept, not added again
    assert store.do_not_translate(tenant, "org-b") == []
    store.set_do_not_translate(tenant, "org-a", [])
    assert store.do_not_translate(tenant, "org-a") == []


def test_reads_are_cached_until_a_change_or_the_time_is_up(
    store: GlossaryStore, tenant: str, clock: ManualClock
) -> None:
    replica = GlossaryStore(store.database, cache_seconds=5, clock=clock)
    assert asyncio.run(replica.for_translation(tenant, "org-a")) == OrganizationTerms()
    created = create(store, tenant)
    assert asyncio.run(store.for_translation(tenant, "org-a")).glossaries == (created,)
    assert asyncio.run(replica.for_translation(tenant, "org-a")) == OrganizationTerms()  # cached
    clock.now += 5
    assert asyncio.run(replica.for_translation(tenant, "org-a")).glossaries == (created,)
    # The replica that makes a change sees it at once.
    store.set_do_not_translate(tenant, "org-a", [Term("acme", "acme")])
    assert asyncio.run(store.for_translation(tenant, "org-a")).do_not_translate == (
        Term("acme", "acme"),
    )


TOO_LONG = "x" * 201


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": " "}, "A glossary's name must not be empty."),
        ({"name": TOO_LONG}, "A glossary's name has at most 200 characters, got 201."),
        ({"source_language": "tlh"}, "source language is one of en, es, fr, de, pt"),
        ({"target_language": "xx"}, "got 'xx'"),
        ({"target_language": "en-GB"}, "must differ, got 'en' for both"),
        ({"entries": ()}, "1 to 1000 entries, got 0: give at least one."),
        ({"entries": [Term("a", "b")] * 1001}, "got 1001: split it in several."),
        ({"entries": [Term("a", " ")]}, "Glossary entry 1's target must not be empty."),
        ({"entries": [*ENTRIES, Term(TOO_LONG, "b")]}, "entry 3's source has at most 200"),
        ({"entries": [Term("a\nb", "c")]}, "entry 1's source must be on one line"),
        (
            {"entries": [Term("Ticket", "a"), *ENTRIES]},
            "entries 1 and 2 both have the source 'ticket' but for case",
        ),
        (
            {"entries": [Term("Optave", "a", True), *ENTRIES]},
            "entries 1 and 3 both have the source 'Optave': keep one.",
        ),
    ],
)
def test_mistakes_are_refused_with_what_to_fix(
    store: GlossaryStore, tenant: str, fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        create(store, tenant, **fields)
    assert store.list(tenant, "org-a") == []


def test_case_sensitive_sources_may_differ_in_case(store: GlossaryStore, tenant: str) -> None:
    entries = (Term("US", "EE. UU.", True), Term("us", "nosotros", True))
    assert create(store, tenant, entries=entries).entries == entries


@pytest.mark.parametrize(
    ("terms", "message"),
    [
        ([Term("a", "")] * 10_001, "at most 10000 do-not-translate terms, got 10001."),
        ([Term("ok", ""), Term("", "")], "Do-not-translate term 2 must not be empty."),
        ([Term(TOO_LONG, "")], "term 1 has at most 200 characters"),
        ([Term("a\rb", "")], "term 1 must be on one line"),
        ([Term("acme", ""), Term("ACME", "", True)], "terms 1 and 2 are both 'ACME' but for"),
    ],
)
def test_do_not_translate_mistakes(
    store: GlossaryStore, tenant: str, terms: list[Term], message: str
) -> None:
    store.set_do_not_translate(tenant, "org-a", [Term("kept", "")])
    with pytest.raises(ValueError, match=message):
        store.set_do_not_translate(tenant, "org-a", terms)
    assert store.do_not_translate(tenant, "org-a") == [Term("kept", "kept")]


def test_an_organization_has_a_bounded_number_of_glossaries(
    store: GlossaryStore, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(glossaries, "MAX_GLOSSARIES", 2)
    create(store, tenant, "one")
    create(store, tenant, "two")
    with pytest.raises(ValueError, match="at most 2 glossaries and 'org-a' has 2: delete one"):
        create(store, tenant, "three")
    store.create(tenant, "org-b", "three", "en", "es", ENTRIES)  # another organization's


def test_the_tenant_must_exist(store: GlossaryStore) -> None:
    with pytest.raises(ValueError, match="There is no tenant 'nobody'"):
        store.create("nobody", "org-a", "x", "en", "es", ENTRIES)
    with pytest.raises(ValueError, match="There is no tenant 'nobody'"):
        store.set_do_not_translate("nobody", "org-a", [])
    with pytest.raises(ValueError, match="organization id must not be empty"):
        store.list("default", " ")
