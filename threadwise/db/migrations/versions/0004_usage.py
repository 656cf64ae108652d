"""Each organization's usage per day, and its optional monthly character quota.

Revision ID: 0004
Revises: 0003
Created: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _count(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.BigInteger(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "usage_daily",
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("operation", sa.String(16), nullable=False),
        _count("requests"),
        _count("characters"),
        _count("prompt_tokens"),
        _count("completion_tokens"),
        sa.ForeignKeyConstraint(
            ["tenant"],
            ["tenants.name"],
            name="fk_usage_daily_tenant_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "tenant", "organization_id", "day", "operation", name="pk_usage_daily"
        ),
    )
    # Nullable: a new column on SQLite needs no table rebuild.
    op.add_column(
        "organization_settings", sa.Column("monthly_characters", sa.BigInteger(), nullable=True)
    )


def downgrade() -> None:
    with op.batch_alter_table("organization_settings") as table:
        table.drop_column("monthly_characters")
    op.drop_table("usage_daily")
