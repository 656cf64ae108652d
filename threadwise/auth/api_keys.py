"""API keys: a second way to authenticate, for clients that send one static key (DeepL's and
LibreTranslate's clients, scripts) instead of fetching tokens.

A key acts as its client: the same tenant, organizations, limits, quotas and audit. It is shown
once, at creation; only an argon2id hash of it is stored, as for client secrets. A key checked
once is trusted for ``cache_seconds`` (by a SHA-256 of it, never the key itself), so a request
costs no argon2 hash; revoking it takes effect at once on the replica that revoked it, and
within that time on the others.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from threadwise.auth.audit import AuditLog
from threadwise.auth.clients import ClientRecord, ClientRegistry, UnknownClientError
from threadwise.auth.credentials import SecretHasher, api_key_id, new_api_key
from threadwise.db.database import Database
from threadwise.db.tables import ApiKey, Client
from threadwise.ttl_cache import TtlCache

# How often a key's last use is written, at most, per replica.
_LAST_USED_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class ApiKeyRecord:
    key_id: str
    client_id: str
    name: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True)
class NewApiKey:
    """A key as created: the only time the key itself is known."""

    record: ApiKeyRecord
    key: str


class UnknownApiKeyError(LookupError):
    def __init__(self, key_id: str) -> None:
        super().__init__(
            f"There is no API key {key_id!r}; `threadwise api-keys list` shows the keys."
        )


class ApiKeyStore:
    def __init__(
        self,
        database: Database,
        hasher: SecretHasher,
        clients: ClientRegistry,
        cache_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.database = database
        self.hasher = hasher
        self.clients = clients
        # SHA-256 of a key -> the client it acts as, when it checked out; None when not.
        self._checked: TtlCache[str, str | None] = TtlCache(cache_seconds, clock=clock)
        self._written: dict[str, datetime] = {}

    # --- management ----------------------------------------------------------------------

    def create(self, client_id: str, name: str = "") -> NewApiKey:
        key_id, key = new_api_key()
        now = datetime.now(UTC)
        with self.database.session() as session, session.begin():
            client = session.get(Client, client_id)
            if client is None:
                raise UnknownClientError(client_id)
            if client.revoked_at is not None or not client.enabled:
                raise ValueError(f"The client {client_id!r} is revoked; a key would not work.")
            row = ApiKey(
                key_id=key_id,
                client_id=client_id,
                name=name[:200],
                secret_hash=self.hasher.hash(key),
                created_at=now,
            )
            session.add(row)
            AuditLog.add(
                session, "api_key_created", tenant=client.tenant, client_id=client_id, detail=key_id
            )
            session.flush()
            return NewApiKey(_record(row), key)

    def list(self, client_id: str | None = None) -> list[ApiKeyRecord]:
        query = select(ApiKey).order_by(ApiKey.client_id, ApiKey.created_at, ApiKey.key_id)
        if client_id is not None:
            query = query.where(ApiKey.client_id == client_id)
        with self.database.session() as session:
            return [_record(row) for row in session.scalars(query)]

    def revoke(self, key_id: str) -> ApiKeyRecord:
        with self.database.session() as session, session.begin():
            row = session.get(ApiKey, key_id)
            if row is None:
                raise UnknownApiKeyError(key_id)
            if row.revoked_at is None:
                row.revoked_at = datetime.now(UTC)
                AuditLog.add(session, "api_key_revoked", client_id=row.client_id, detail=key_id)
            record = _record(row)
        self._checked.clear()
        return record

    # --- checking ------------------------------------------------------------------------

    async def client_of(self, key: str) -> ClientRecord | None:
        """The active client ``key`` acts as; ``None`` for a key that is malformed, unknown,
        revoked, or whose client is revoked."""
        if api_key_id(key) is None:
            return None
        digest = hashlib.sha256(key.encode()).hexdigest()
        client_id = await self._checked.read_through(digest, lambda: self._check(key))
        return await self.clients.active(client_id) if client_id is not None else None

    def _check(self, key: str) -> str | None:
        """The client a live ``key`` acts as (an argon2 verification: milliseconds)."""
        key_id = api_key_id(key)
        with self.database.session() as session, session.begin():
            row = session.get(ApiKey, key_id) if key_id is not None else None
            # A key that does not exist costs the same as one that does.
            if not self.hasher.verify(row.secret_hash if row else None, key) or row is None:
                return None
            if row.revoked_at is not None:
                return None
            now = datetime.now(UTC)
            last = self._written.get(row.key_id)
            if last is None or now - last >= _LAST_USED_EVERY:
                row.last_used_at = now
                self._written[row.key_id] = now
            return row.client_id


def _record(row: ApiKey) -> ApiKeyRecord:
    return ApiKeyRecord(
        key_id=row.key_id,
        client_id=row.client_id,
        name=row.name,
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        revoked_at=row.revoked_at,
    )
