"""The client registry: who may fetch tokens, for which tenant and organizations.

Secrets are stored only as argon2id hashes. What a replica reads about a client is cached
for ``cache_seconds``, so checking a token costs no database round trip; revoking a client
takes effect at once on the replica that revoked it and within that time on the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from threadwise.auth.audit import AuditLog
from threadwise.auth.credentials import SecretHasher, new_client_id, new_client_secret
from threadwise.auth.tenancy import tenant_name
from threadwise.db.database import Database
from threadwise.db.tables import Client, ClientOrganization, Tenant
from threadwise.protocol import MAX_ID_LENGTH
from threadwise.ttl_cache import TtlCache

MAX_LIMIT = 2**31 - 1  # the limits' database columns are 32-bit


@dataclass(frozen=True)
class ClientRecord:
    client_id: str
    tenant: str
    name: str
    organizations: tuple[str, ...]
    enabled: bool
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    requests_per_minute: int | None
    characters_per_minute: int | None


@dataclass(frozen=True)
class ClientSecret:
    """A client with its secret, as created or rotated: the only time the secret is known."""

    client: ClientRecord
    client_secret: str


@dataclass(frozen=True)
class SecretCheck:
    client: ClientRecord | None  # None: there is no client with that id
    matches: bool


class UnknownClientError(LookupError):
    def __init__(self, client_id: str) -> None:
        super().__init__(
            f"There is no client {client_id!r}; `threadwise clients list` shows the clients."
        )


class ClientRegistry:
    def __init__(
        self,
        database: Database,
        hasher: SecretHasher,
        cache_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.database = database
        self.hasher = hasher
        self.cache_seconds = cache_seconds
        self.clock = clock
        # Through self.clock, so that the registry's clock stays the one to set.
        self._cache: TtlCache[str, ClientRecord | None] = TtlCache(
            cache_seconds, clock=lambda: self.clock()
        )

    # --- management ----------------------------------------------------------------------

    def create(
        self,
        tenant: str,
        organizations: Iterable[str],
        name: str = "",
        *,
        requests_per_minute: int | None = None,
        characters_per_minute: int | None = None,
    ) -> ClientSecret:
        tenant = tenant_name(tenant)
        orgs = _organizations(organizations)
        for limit in (requests_per_minute, characters_per_minute):
            if limit is not None and not 1 <= limit <= MAX_LIMIT:
                raise ValueError(
                    f"A per-minute limit must be between 1 and {MAX_LIMIT}, got {limit}."
                )
        secret = new_client_secret()
        now = datetime.now(UTC)
        row = Client(
            client_id=new_client_id(),
            tenant=tenant,
            name=name[:200],
            secret_hash=self.hasher.hash(secret),
            enabled=True,
            created_at=now,
            requests_per_minute=requests_per_minute,
            characters_per_minute=characters_per_minute,
            organizations=[ClientOrganization(organization_id=org) for org in orgs],
        )
        with self.database.session() as session, session.begin():
            _ensure_tenant(session, tenant, now)
            session.add(row)
            AuditLog.add(session, "client_created", tenant=tenant, client_id=row.client_id)
            session.flush()
            return ClientSecret(_record(row), secret)

    def list(self, tenant: str | None = None) -> list[ClientRecord]:
        query = select(Client).order_by(Client.tenant, Client.created_at, Client.client_id)
        if tenant is not None:
            query = query.where(Client.tenant == tenant)
        with self.database.session() as session:
            return [_record(row) for row in session.scalars(query)]

    def get(self, client_id: str) -> ClientRecord | None:
        with self.database.session() as session:
            row = session.get(Client, client_id)
            return _record(row) if row is not None else None

    def count(self) -> int:
        with self.database.session() as session:
            return session.scalar(select(func.count()).select_from(Client)) or 0

    def revoke(self, client_id: str) -> ClientRecord:
        """Disable the client: it gets no more tokens, and the ones it has stop working."""
        with self.database.session() as session, session.begin():
            row = self._row(session, client_id)
            if row.enabled:
                row.enabled = False
                row.revoked_at = datetime.now(UTC)
                AuditLog.add(session, "client_revoked", tenant=row.tenant, client_id=client_id)
            record = _record(row)
        self._forget(client_id)
        return record

    def rotate(self, client_id: str) -> ClientSecret:
        """Give the client a new secret. The old one stops working; its tokens do not."""
        secret = new_client_secret()
        with self.database.session() as session, session.begin():
            row = self._row(session, client_id)
            row.secret_hash = self.hasher.hash(secret)
            row.secret_rotated_at = datetime.now(UTC)
            AuditLog.add(session, "client_rotated", tenant=row.tenant, client_id=client_id)
            record = _record(row)
        self._forget(client_id)
        return ClientSecret(record, secret)

    # --- authentication --------------------------------------------------------------------

    def check_secret(self, client_id: str, secret: str) -> SecretCheck:
        """Whether ``secret`` is the client's; as slow for an unknown client as a known one."""
        stored_hash: str | None = None
        record: ClientRecord | None = None
        if len(client_id) <= 64:
            with self.database.session() as session:
                row = session.get(Client, client_id)
                if row is not None:
                    stored_hash, record = row.secret_hash, _record(row)
        # The slow hash runs with no database connection held.
        if not self.hasher.verify(stored_hash, secret):
            return SecretCheck(record, matches=False)
        assert stored_hash is not None
        if self.hasher.needs_rehash(stored_hash):  # the cost settings have grown since
            with self.database.session() as session, session.begin():
                row = self._row(session, client_id)
                if row.secret_hash == stored_hash:  # not rotated meanwhile
                    row.secret_hash = self.hasher.hash(secret)
        return SecretCheck(record, matches=True)

    def mark_used(self, client_id: str, address: str | None) -> None:
        """Record that the client got a token (its last use, and the audit event)."""
        with self.database.session() as session, session.begin():
            row = self._row(session, client_id)
            row.last_used_at = datetime.now(UTC)
            AuditLog.add(
                session, "token_issued", tenant=row.tenant, client_id=client_id, address=address
            )

    async def active(self, client_id: str) -> ClientRecord | None:
        """The client if it exists and is enabled, from the cache when fresh enough."""
        record = await self._cache.read_through(client_id, lambda: self.get(client_id))
        return record if record is not None and record.enabled else None

    def _forget(self, client_id: str) -> None:
        self._cache.forget(client_id)

    @staticmethod
    def _row(session: Session, client_id: str) -> Client:
        row = session.get(Client, client_id)
        if row is None:
            raise UnknownClientError(client_id)
        return row


def _organizations(organizations: Iterable[str]) -> list[str]:
    orgs = sorted({org.strip() for org in organizations if org.strip()})
    if not orgs:
        raise ValueError("A client needs at least one organization it may act for (--org).")
    too_long = [org for org in orgs if len(org) > MAX_ID_LENGTH]
    if too_long:
        raise ValueError(
            f"An organization id has at most {MAX_ID_LENGTH} characters; "
            f"{too_long[0][:40]!r}… has {len(too_long[0])}."
        )
    return orgs


def _ensure_tenant(session: Session, name: str, now: datetime) -> None:
    if session.get(Tenant, name) is not None:
        return
    try:
        with session.begin_nested():  # another process may be adding it right now
            session.add(Tenant(name=name, created_at=now))
    except IntegrityError:
        pass


def _record(row: Client) -> ClientRecord:
    return ClientRecord(
        client_id=row.client_id,
        tenant=row.tenant,
        name=row.name,
        organizations=tuple(org.organization_id for org in row.organizations),
        enabled=row.enabled,
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        revoked_at=row.revoked_at,
        requests_per_minute=row.requests_per_minute,
        characters_per_minute=row.characters_per_minute,
    )
