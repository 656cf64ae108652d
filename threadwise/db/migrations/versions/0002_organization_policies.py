"""Each organization's policies: its defaults, and its custom summary aspects.

Revision ID: 0002
Revises: 0001
Created: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "organization_settings",
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("summary_aspects", sa.Text(), nullable=True),
        sa.Column("redact_personal_data", sa.String(16), nullable=True),
        _when("updated_at"),
        sa.ForeignKeyConstraint(
            ["tenant"],
            ["tenants.name"],
            name="fk_organization_settings_tenant_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant", "organization_id", name="pk_organization_settings"),
    )
    op.create_table(
        "custom_aspects",
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("instruction", sa.Text(), nullable=False),
        sa.Column("example_conversation", sa.Text(), nullable=False),
        sa.Column("example_answer", sa.Text(), nullable=False),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["tenant"],
            ["tenants.name"],
            name="fk_custom_aspects_tenant_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant", "organization_id", "name", name="pk_custom_aspects"),
    )


def downgrade() -> None:
    op.drop_table("custom_aspects")
    op.drop_table("organization_settings")
