"""Webhook secrets: each organization's webhook signing secrets, current and rotated out.

Revision ID: 0006
Revises: 0005
Created: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "webhook_secrets",
        sa.Column("secret_id", sa.String(32), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        _when("created_at"),
        _when("expires_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant"],
            ["tenants.name"],
            name="fk_webhook_secrets_tenant_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("secret_id", name="pk_webhook_secrets"),
    )
    op.create_index(
        "ix_webhook_secrets_tenant_organization_id",
        "webhook_secrets",
        ["tenant", "organization_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_webhook_secrets_tenant_organization_id", "webhook_secrets")
    op.drop_table("webhook_secrets")
