"""Tenants, clients and the organizations each may act for, and the audit log.

Revision ID: 0001
Revises:
Created: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("name", sa.String(63), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("name", name="pk_tenants"),
    )
    op.create_table(
        "clients",
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("secret_hash", sa.String(255), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        _when("created_at"),
        _when("last_used_at", nullable=True),
        _when("secret_rotated_at", nullable=True),
        _when("revoked_at", nullable=True),
        sa.Column("requests_per_minute", sa.Integer(), nullable=True),
        sa.Column("characters_per_minute", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["tenant"], ["tenants.name"], name="fk_clients_tenant_tenants"),
        sa.PrimaryKeyConstraint("client_id", name="pk_clients"),
    )
    op.create_index("ix_clients_tenant", "clients", ["tenant"])
    op.create_table(
        "client_organizations",
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["clients.client_id"],
            name="fk_client_organizations_client_id_clients",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("client_id", "organization_id", name="pk_client_organizations"),
    )
    op.create_table(
        "audit_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        _when("occurred_at"),
        sa.Column("event", sa.String(32), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=True),
        sa.Column("client_id", sa.String(64), nullable=True),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("detail", sa.String(200), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_audit_events"),
    )
    op.create_index("ix_audit_events_occurred_at", "audit_events", ["occurred_at"])
    op.create_index("ix_audit_events_client_id", "audit_events", ["client_id"])


def downgrade() -> None:
    op.drop_table("audit_events")
    op.drop_table("client_organizations")
    op.drop_table("clients")
    op.drop_table("tenants")
