"""The schema: tenants, their clients and the organizations each may act for, the audit log,
each organization's policies (its defaults, its custom summary aspects and its quota), its
translation terms (glossaries and do-not-translate terms), its usage per day, the secrets
that sign its webhooks, and its asynchronous jobs.

Changing it needs a migration in ``migrations/versions`` (``alembic revision --autogenerate``);
a test checks that the two agree.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    BigInteger,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC in and out, also on SQLite, which stores no zone."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"expected a timezone-aware datetime, got naive {value!r}")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime()}


class Tenant(Base):
    __tablename__ = "tenants"

    name: Mapped[str] = mapped_column(String(63), primary_key=True)
    created_at: Mapped[datetime]


class Client(Base):
    __tablename__ = "clients"

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant: Mapped[str] = mapped_column(ForeignKey("tenants.name"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    # An argon2id hash; the secret itself is shown once and never stored.
    secret_hash: Mapped[str] = mapped_column(String(255))
    enabled: Mapped[bool]
    created_at: Mapped[datetime]
    # When the client last got a token (not every request: that would be a write per request).
    last_used_at: Mapped[datetime | None]
    secret_rotated_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    # Per-organization limits for this client's requests; NULL means the service's default.
    requests_per_minute: Mapped[int | None]
    characters_per_minute: Mapped[int | None]

    organizations: Mapped[list[ClientOrganization]] = relationship(
        cascade="all, delete-orphan",
        lazy="selectin",
        order_by="ClientOrganization.organization_id",
    )


class ClientOrganization(Base):
    __tablename__ = "client_organizations"

    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.client_id", ondelete="CASCADE"), primary_key=True
    )
    organization_id: Mapped[str] = mapped_column(String(256), primary_key=True)


class ApiKey(Base):
    """A static key that acts as its client (for clients that send one key, as DeepL's and
    LibreTranslate's do). Only an argon2id hash of its secret part is stored."""

    __tablename__ = "api_keys"

    key_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.client_id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    secret_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime]
    # At most once a minute per replica: a write per request would cost more than the request.
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class AuditEvent(Base):
    """Token issuance and refusals, and changes to clients. Never a secret or a token."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
    )
    occurred_at: Mapped[datetime] = mapped_column(index=True)
    event: Mapped[str] = mapped_column(String(32))
    tenant: Mapped[str | None] = mapped_column(String(63))
    client_id: Mapped[str | None] = mapped_column(String(64), index=True)
    address: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[str | None] = mapped_column(String(200))


class OrganizationSettings(Base):
    """An organization's defaults for the requests that do not set their own."""

    __tablename__ = "organization_settings"

    tenant: Mapped[str] = mapped_column(
        ForeignKey("tenants.name", ondelete="CASCADE"), primary_key=True
    )
    organization_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    # A JSON list of aspect names; NULL means no default.
    summary_aspects: Mapped[str | None] = mapped_column(Text)
    redact_personal_data: Mapped[str | None] = mapped_column(String(16))
    # The message characters its requests may use per UTC calendar month; NULL: no quota.
    monthly_characters: Mapped[int | None] = mapped_column(BigInteger)
    # Where its jobs' webhooks go when a job names no URL; NULL: nowhere.
    webhook_url: Mapped[str | None] = mapped_column(Text)
    # Whether its requests may use translation directions labelled experimental.
    experimental_languages: Mapped[bool] = mapped_column(default=False, server_default=false())
    updated_at: Mapped[datetime]


class CustomAspect(Base):
    """A summary aspect an organization defines: what to write, and one worked example."""

    __tablename__ = "custom_aspects"

    tenant: Mapped[str] = mapped_column(
        ForeignKey("tenants.name", ondelete="CASCADE"), primary_key=True
    )
    organization_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    instruction: Mapped[str] = mapped_column(Text)
    example_conversation: Mapped[str] = mapped_column(Text)
    example_answer: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class Glossary(Base):
    """An organization's terms for one language pair; at most one of a pair is its default
    (the store keeps it so: the database has no partial unique index on SQLite and
    PostgreSQL alike)."""

    __tablename__ = "glossaries"
    __table_args__ = (Index("ix_glossaries_tenant_organization_id", "tenant", "organization_id"),)

    glossary_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant: Mapped[str] = mapped_column(ForeignKey("tenants.name", ondelete="CASCADE"))
    organization_id: Mapped[str] = mapped_column(String(256))
    name: Mapped[str] = mapped_column(String(200))
    source_language: Mapped[str] = mapped_column(String(8))
    target_language: Mapped[str] = mapped_column(String(8))
    is_default: Mapped[bool]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class GlossaryEntry(Base):
    __tablename__ = "glossary_entries"

    glossary_id: Mapped[str] = mapped_column(
        ForeignKey("glossaries.glossary_id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    source: Mapped[str] = mapped_column(String(200))
    target: Mapped[str] = mapped_column(String(200))
    case_sensitive: Mapped[bool]


class DoNotTranslateTerm(Base):
    """A term an organization's translations keep as it is."""

    __tablename__ = "do_not_translate"

    tenant: Mapped[str] = mapped_column(
        ForeignKey("tenants.name", ondelete="CASCADE"), primary_key=True
    )
    organization_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    term: Mapped[str] = mapped_column(String(200), primary_key=True)
    case_sensitive: Mapped[bool]
    created_at: Mapped[datetime]


class UsageDaily(Base):
    """What an organization's requests used on one UTC day, per operation; replicas add to
    a row, never replace it."""

    __tablename__ = "usage_daily"

    tenant: Mapped[str] = mapped_column(
        ForeignKey("tenants.name", ondelete="CASCADE"), primary_key=True
    )
    organization_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    operation: Mapped[str] = mapped_column(String(16), primary_key=True)  # summarize, translate
    requests: Mapped[int] = mapped_column(BigInteger)
    characters: Mapped[int] = mapped_column(BigInteger)  # a translation's, once per target
    prompt_tokens: Mapped[int] = mapped_column(BigInteger)
    completion_tokens: Mapped[int] = mapped_column(BigInteger)


class WebhookSecret(Base):
    """A secret that signs an organization's webhooks. Kept as it is, not hashed: signing
    needs it. A rotated-out one signs too until ``expires_at``, so receivers can switch."""

    __tablename__ = "webhook_secrets"
    __table_args__ = (
        Index("ix_webhook_secrets_tenant_organization_id", "tenant", "organization_id"),
    )

    secret_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tenant: Mapped[str] = mapped_column(ForeignKey("tenants.name", ondelete="CASCADE"))
    organization_id: Mapped[str] = mapped_column(String(256))
    secret: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime | None]  # NULL: current


class Job(Base):
    """An asynchronous summarize or translate request: its body, its state, its progress
    (conversations done, with their answers), its result until ``expires_at``, and its
    webhook's deliveries."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_tenant_organization_id", "tenant", "organization_id", "created_at"),
        Index("ix_jobs_status", "status"),
        Index("ix_jobs_expires_at", "expires_at"),
        Index("ix_jobs_batch_id", "batch_id"),
        Index(
            "ix_jobs_idempotency",
            "tenant",
            "organization_id",
            "idempotency_key",
            unique=True,
        ),
    )

    job_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # The jobs submitted together that one task of the queue runs: a job's own id when alone.
    batch_id: Mapped[str] = mapped_column(String(36))
    tenant: Mapped[str] = mapped_column(ForeignKey("tenants.name", ondelete="CASCADE"))
    organization_id: Mapped[str] = mapped_column(String(256))
    operation: Mapped[str] = mapped_column(String(16))  # summarize, translate
    status: Mapped[str] = mapped_column(String(16))  # queued running completed failed cancelled
    body: Mapped[str] = mapped_column(Text)  # the request's JSON, as parsed
    request_id: Mapped[str | None] = mapped_column(Text)
    idempotency_key: Mapped[str | None] = mapped_column(String(256))
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    # Characters held against the monthly quota, less those already counted as used.
    reserved_characters: Mapped[int] = mapped_column(BigInteger)
    progress_done: Mapped[int] = mapped_column(Integer)
    progress_total: Mapped[int] = mapped_column(Integer)
    partial: Mapped[str | None] = mapped_column(Text)  # JSON: the answers of the parts done
    result: Mapped[str | None] = mapped_column(Text)  # JSON: the response envelope
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)
    runs: Mapped[int] = mapped_column(Integer)  # times a worker took it up
    webhook_url: Mapped[str | None] = mapped_column(Text)
    webhook_status: Mapped[str | None] = mapped_column(String(16))
    webhook_message_id: Mapped[str | None] = mapped_column(String(64))
    webhook_attempts: Mapped[str | None] = mapped_column(Text)  # JSON list
    webhook_next_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    expires_at: Mapped[datetime | None]
