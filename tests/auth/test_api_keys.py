"""API keys: created once, stored hashed, acting as their client until revoked."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.clock import ManualClock
from threadwise.auth.api_keys import ApiKeyStore, UnknownApiKeyError
from threadwise.auth.clients import ClientRegistry
from threadwise.auth.credentials import SecretHasher, api_key_id
from threadwise.db.database import Database
from threadwise.db.tables import ApiKey

# Cheap hashes: the tests check what is stored, not argon2's cost.
HASHER = SecretHasher(time_cost=1, memory_kib=1024)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    opened = Database(f"sqlite:///{tmp_path / 'keys.sqlite'}")
    opened.upgrade()
    yield opened
    opened.close()


@pytest.fixture
def clients(database: Database) -> ClientRegistry:
    return ClientRegistry(database, HASHER)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def store(database: Database, clients: ClientRegistry, clock: ManualClock) -> ApiKeyStore:
    return ApiKeyStore(database, HASHER, clients, cache_seconds=5, clock=clock)


def client_of(store: ApiKeyStore, key: str) -> str | None:
    client = asyncio.run(store.client_of(key))
    return client.client_id if client is not None else None


def test_a_key_acts_as_its_client(store: ApiKeyStore, clients: ClientRegistry) -> None:
    client = clients.create("acme", ["org-1", "org-2"]).client
    created = store.create(client.client_id, "mastodon")
    assert api_key_id(created.key) == created.record.key_id
    assert client_of(store, created.key) == client.client_id
    [listed] = store.list(client.client_id)
    assert listed.name == "mastodon" and listed.revoked_at is None
    assert listed.last_used_at is not None


def test_only_a_hash_of_the_key_is_stored(store: ApiKeyStore, database: Database) -> None:
    client = ClientRegistry(database, HASHER).create("acme", ["org-1"]).client
    created = store.create(client.client_id)
    with database.session() as session:
        row = session.scalars(select(ApiKey)).one()
        stored = [str(getattr(row, c.name)) for c in ApiKey.__table__.columns]
    assert all(created.key not in value for value in stored)
    assert row.secret_hash.startswith("$argon2id$")


def test_what_is_not_a_live_key_acts_as_no_one(store: ApiKeyStore, clients: ClientRegistry) -> None:
    client = clients.create("acme", ["org-1"]).client
    key = store.create(client.client_id).key
    wrong_secret = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    unknown_id = "twk_" + "0" * 16 + key[20:]
    for bad in (wrong_secret, unknown_id, "twk_short", "", "tws_" + key[4:], key + "x"):
        assert client_of(store, bad) is None, bad


def test_a_revoked_key_is_refused_at_once_here(store: ApiKeyStore, clients: ClientRegistry) -> None:
    client = clients.create("acme", ["org-1"]).client
    created = store.create(client.client_id)
    assert client_of(store, created.key) == client.client_id  # now cached
    store.revoke(created.record.key_id)
    assert client_of(store, created.key) is None
    assert store.list()[0].revoked_at is not None


def test_another_replicas_revocation_counts_once_the_cache_expires(
    database: Database, clients: ClientRegistry, clock: ManualClock
) -> None:
    here = ApiKeyStore(database, HASHER, clients, cache_seconds=5, clock=clock)
    there = ApiKeyStore(database, HASHER, ClientRegistry(database, HASHER), cache_seconds=5)
    client = clients.create("acme", ["org-1"]).client
    created = here.create(client.client_id)
    assert client_of(here, created.key) == client.client_id
    there.revoke(created.record.key_id)
    assert client_of(here, created.key) == client.client_id  # trusted for cache_seconds
    clock.now += 5
    assert client_of(here, created.key) is None


def test_a_revoked_clients_keys_are_refused(store: ApiKeyStore, clients: ClientRegistry) -> None:
    client = clients.create("acme", ["org-1"]).client
    created = store.create(client.client_id)
    clients.revoke(client.client_id)
    assert client_of(store, created.key) is None
    with pytest.raises(ValueError, match="revoked"):
        store.create(client.client_id)


def test_revoking_an_unknown_key_says_how_to_find_one(store: ApiKeyStore) -> None:
    with pytest.raises(UnknownApiKeyError, match="api-keys list"):
        store.revoke("0123456789abcdef")
