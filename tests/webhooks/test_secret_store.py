"""Signing secrets per organization: created once, rotated with a day's overlap, then gone."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from threadwise.db.database import Database
from threadwise.db.tables import Tenant
from threadwise.webhooks.secret_store import ROTATION_OVERLAP, WebhookSecretStore

START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def tenant(database: Database) -> str:
    name = f"t{uuid.uuid4().hex[:10]}"
    with database.session() as session, session.begin():
        session.add(Tenant(name=name, created_at=START))
    return name


# Kept or not, what a store reads after its own writes is the same.
@pytest.mark.parametrize("cache_seconds", [0.0, 600.0])
def test_create_then_rotate_keeps_the_old_secret_for_a_day(
    database: Database, tenant: str, cache_seconds: float
) -> None:
    clock = Clock()
    store = WebhookSecretStore(database, now=clock, cache_seconds=cache_seconds)
    assert store.current(tenant, "o1") == []
    first = store.create(tenant, "o1")
    assert first.secret.startswith("whsec_") and first.expires_at is None
    assert store.current(tenant, "o1") == [first]

    clock.now += timedelta(minutes=1)
    second = store.rotate(tenant, "o1")
    current = store.current(tenant, "o1")
    assert [s.secret for s in current] == [second.secret, first.secret]
    assert current[1].expires_at == clock.now + ROTATION_OVERLAP

    clock.now += ROTATION_OVERLAP
    assert [s.secret for s in store.current(tenant, "o1")] == [second.secret]
    third = store.rotate(tenant, "o1")  # and the expired one is removed
    assert [s.secret for s in store.current(tenant, "o1")] == [third.secret, second.secret]


def test_organizations_and_tenants_keep_their_own(database: Database, tenant: str) -> None:
    store = WebhookSecretStore(database)
    mine = store.create(tenant, "o1")
    theirs = store.create(tenant, "o2")
    assert mine.secret != theirs.secret
    assert store.current(tenant, " o1 ") == [mine]  # ids are read as every store reads them


def test_refusals_say_what_to_do(database: Database, tenant: str) -> None:
    store = WebhookSecretStore(database)
    with pytest.raises(ValueError, match="secret create o1"):
        store.rotate(tenant, "o1")
    store.create(tenant, "o1")
    with pytest.raises(ValueError, match="secret rotate o1"):
        store.create(tenant, "o1")
    with pytest.raises(ValueError, match="no tenant 'nosuch'"):
        store.create("nosuch", "o1")
    with pytest.raises(ValueError, match="must not be empty"):
        store.current(tenant, "  ")


def test_another_replicas_rotation_signs_here_after_the_cache_time(
    database: Database, tenant: str
) -> None:
    kept = WebhookSecretStore(database, cache_seconds=600.0)
    other = WebhookSecretStore(database)
    first = other.create(tenant, "o1")
    assert kept.current(tenant, "o1") == [first]
    second = other.rotate(tenant, "o1")
    # Within the cache time the first one still signs here (receivers take both for a day).
    assert [s.secret for s in kept.current(tenant, "o1")] == [first.secret]
    assert [s.secret for s in WebhookSecretStore(database).current(tenant, "o1")] == [
        second.secret,
        first.secret,
    ]
