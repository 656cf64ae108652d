"""Each organization's webhook signing secrets: one current, and after a rotation the one
before it for a day, so that its receivers can switch without refusing a webhook.

Secrets are kept as they are (signing needs them), in the database that already holds the
service's other credentials' hashes; they are never logged (``threadwise.logs`` blanks them).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from threadwise.auth.tenancy import tenant_name
from threadwise.db.database import Database
from threadwise.db.tables import WebhookSecret
from threadwise.organizations.scope import organization_id, require_tenant
from threadwise.ttl_cache import TtlCache
from threadwise.webhooks.signing import new_secret

# How long a rotated-out secret still signs: receivers have a day to take the new one.
ROTATION_OVERLAP = timedelta(hours=24)


@dataclass(frozen=True)
class SigningSecret:
    secret_id: str
    secret: str
    created_at: datetime
    expires_at: datetime | None  # None: the current one


def _utc_now() -> datetime:
    return datetime.now(UTC)


class WebhookSecretStore:
    """Create, rotate and read an organization's signing secrets (``threadwise webhooks
    secret``); ``now`` is the clock expiry is read by."""

    def __init__(
        self,
        database: Database,
        now: Callable[[], datetime] = _utc_now,
        *,
        cache_seconds: float = 0.0,
    ) -> None:
        self.database = database
        self.now = now
        # The secrets read for signing, kept for a few seconds (a webhook each job must not
        # cost a read): a rotation signs with the new one at once on this replica, within
        # ``cache_seconds`` on the others (the one before still signs for a day).
        self._cache: TtlCache[tuple[str, str], list[SigningSecret]] = TtlCache(cache_seconds)

    def create(self, tenant: str, organization: str) -> SigningSecret:
        """The organization's first secret; ``ValueError`` if it has one."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session, session.begin():
            require_tenant(session, tenant)
            if _rows(session, tenant, organization, self.now()):
                raise ValueError(
                    f"Organization {organization!r} already has a webhook signing secret: "
                    f"`threadwise webhooks secret show {organization}` prints it, "
                    f"`threadwise webhooks secret rotate {organization}` replaces it."
                )
            added = _add(session, tenant, organization, self.now())
        self._cache.forget((tenant, organization))
        return added

    def rotate(self, tenant: str, organization: str) -> SigningSecret:
        """A new current secret; the one before signs too for ``ROTATION_OVERLAP``."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        now = self.now()
        with self.database.session() as session, session.begin():
            require_tenant(session, tenant)
            rows = _rows(session, tenant, organization, now)
            if not rows:
                raise ValueError(
                    f"Organization {organization!r} has no webhook signing secret to rotate: "
                    f"`threadwise webhooks secret create {organization}` creates one."
                )
            for row in rows:
                if row.expires_at is None:
                    row.expires_at = now + ROTATION_OVERLAP
            # Rotated-out secrets whose day is over are of no further use.
            session.execute(
                delete(WebhookSecret).where(
                    WebhookSecret.tenant == tenant,
                    WebhookSecret.organization_id == organization,
                    WebhookSecret.expires_at <= now,
                )
            )
            added = _add(session, tenant, organization, now)
        self._cache.forget((tenant, organization))
        return added

    def current(self, tenant: str, organization: str) -> list[SigningSecret]:
        """The secrets that sign now, newest first; empty when the organization has none."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        now = self.now()
        kept = self._cache.get((tenant, organization))
        if kept is not None:
            return [s for s in kept if s.expires_at is None or s.expires_at > now]
        with self.database.session() as session:
            require_tenant(session, tenant)
            secrets = [_secret(row) for row in _rows(session, tenant, organization, now)]
        if secrets and self._cache.seconds > 0:
            self._cache.put((tenant, organization), secrets)
        return secrets


def _rows(session: Session, tenant: str, organization: str, now: datetime) -> list[WebhookSecret]:
    """The unexpired secrets: the current one first, then the rotated-out ones, newest first."""
    query = (
        select(WebhookSecret)
        .where(WebhookSecret.tenant == tenant, WebhookSecret.organization_id == organization)
        .where((WebhookSecret.expires_at.is_(None)) | (WebhookSecret.expires_at > now))
    )
    rows = sorted(session.scalars(query), key=lambda row: row.created_at, reverse=True)
    # Stable: among secrets created in the same instant, the current one still comes first.
    return sorted(rows, key=lambda row: row.expires_at is not None)


def _add(session: Session, tenant: str, organization: str, now: datetime) -> SigningSecret:
    row = WebhookSecret(
        secret_id=uuid.uuid4().hex,
        tenant=tenant,
        organization_id=organization,
        secret=new_secret(),
        created_at=now,
        expires_at=None,
    )
    session.add(row)
    return _secret(row)


def _secret(row: WebhookSecret) -> SigningSecret:
    return SigningSecret(row.secret_id, row.secret, row.created_at, row.expires_at)
