"""The client registry on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import select, text

from threadwise.auth.clients import ClientRegistry, UnknownClientError
from threadwise.auth.credentials import SecretHasher, is_client_id
from threadwise.db.database import Database
from threadwise.db.tables import Client, Tenant


@pytest.fixture
def registry(database: Database) -> ClientRegistry:
    return ClientRegistry(database, SecretHasher(time_cost=1, memory_kib=1024), cache_seconds=60)


def tenant() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


def test_create_stores_only_a_hash(registry: ClientRegistry, database: Database) -> None:
    created = registry.create(tenant(), ["org-b", "org-a", "org-a", " "], "acme's app")
    assert is_client_id(created.client.client_id)
    assert created.client.organizations == ("org-a", "org-b")
    assert created.client.enabled and created.client.last_used_at is None
    with database.session() as session:
        row = session.get(Client, created.client.client_id)
        assert row is not None
        assert created.client_secret not in row.secret_hash
        assert session.get(Tenant, created.client.tenant) is not None
        dumped = session.execute(text("SELECT * FROM clients")).all()
    assert created.client_secret not in repr(dumped)


def test_check_secret(registry: ClientRegistry) -> None:
    created = registry.create(tenant(), ["org-a"])
    client_id = created.client.client_id
    good = registry.check_secret(client_id, created.client_secret)
    assert good.matches and good.client == created.client
    wrong = registry.check_secret(client_id, "tws_wrong")
    assert not wrong.matches and wrong.client is not None
    unknown = registry.check_secret("twc_000000000000000000000000", created.client_secret)
    assert not unknown.matches and unknown.client is None
    assert not registry.check_secret("x" * 10_000, "y").matches


def test_list_by_tenant(registry: ClientRegistry) -> None:
    mine, theirs = tenant(), tenant()
    first = registry.create(mine, ["o1"]).client
    second = registry.create(mine, ["o2"]).client
    registry.create(theirs, ["o1"])
    assert [c.client_id for c in registry.list(mine)] == [first.client_id, second.client_id]
    everyone = {c.client_id for c in registry.list()}
    assert {first.client_id, second.client_id} <= everyone
    assert registry.count() >= 3


def test_revoke(registry: ClientRegistry) -> None:
    created = registry.create(tenant(), ["org-a"])
    client_id = created.client.client_id
    assert asyncio.run(registry.active(client_id)) == created.client
    revoked = registry.revoke(client_id)
    assert not revoked.enabled and revoked.revoked_at is not None
    assert asyncio.run(registry.active(client_id)) is None  # at once, cache or not
    assert registry.revoke(client_id).revoked_at == revoked.revoked_at  # idempotent


def test_rotate(registry: ClientRegistry) -> None:
    created = registry.create(tenant(), ["org-a"])
    rotated = registry.rotate(created.client.client_id)
    assert rotated.client_secret != created.client_secret
    assert registry.check_secret(created.client.client_id, rotated.client_secret).matches
    assert not registry.check_secret(created.client.client_id, created.client_secret).matches


def test_unknown_client(registry: ClientRegistry) -> None:
    for change in (registry.revoke, registry.rotate):
        with pytest.raises(UnknownClientError, match="clients list"):
            change("twc_000000000000000000000000")
    assert asyncio.run(registry.active("twc_000000000000000000000000")) is None


def test_cache_lets_another_process_revoke_within_its_lifetime(database: Database) -> None:
    now = [0.0]
    hasher = SecretHasher(time_cost=1, memory_kib=1024)
    replica = ClientRegistry(database, hasher, cache_seconds=5, clock=lambda: now[0])
    cli = ClientRegistry(database, hasher)
    client_id = cli.create(tenant(), ["org-a"]).client.client_id
    assert asyncio.run(replica.active(client_id)) is not None
    cli.revoke(client_id)
    now[0] = 4.9
    assert asyncio.run(replica.active(client_id)) is not None
    now[0] = 5.1
    assert asyncio.run(replica.active(client_id)) is None


def test_rehash_when_the_cost_grows(registry: ClientRegistry, database: Database) -> None:
    created = registry.create(tenant(), ["org-a"])
    stronger = ClientRegistry(database, SecretHasher(time_cost=2, memory_kib=2048))
    assert stronger.check_secret(created.client.client_id, created.client_secret).matches
    with database.session() as session:
        stored = session.scalar(
            select(Client.secret_hash).where(Client.client_id == created.client.client_id)
        )
    assert stored is not None and "m=2048,t=2" in stored
    assert registry.check_secret(created.client.client_id, created.client_secret).matches


@pytest.mark.parametrize(
    ("orgs", "requests", "message"),
    [
        ([], None, "at least one organization"),
        (["x" * 257], None, "at most 256"),
        (["org-a"], 0, "between 1 and"),
        (["org-a"], 2**31, "between 1 and"),
    ],
)
def test_invalid_clients(
    registry: ClientRegistry, orgs: list[str], requests: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        registry.create(tenant(), orgs, requests_per_minute=requests)


def test_audit_of_changes(registry: ClientRegistry, database: Database) -> None:
    from threadwise.auth.audit import AuditLog

    created = registry.create(tenant(), ["org-a"])
    registry.rotate(created.client.client_id)
    registry.revoke(created.client.client_id)
    events = [e for e in AuditLog(database).recent(50) if e.client_id == created.client.client_id]
    assert [e.event for e in events] == ["client_revoked", "client_rotated", "client_created"]
