"""Each organization's translation terms: glossaries and do-not-translate terms.

Revision ID: 0003
Revises: 0002
Created: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "glossaries",
        sa.Column("glossary_id", sa.String(36), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("source_language", sa.String(8), nullable=False),
        sa.Column("target_language", sa.String(8), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        _when("created_at"),
        _when("updated_at"),
        sa.ForeignKeyConstraint(
            ["tenant"],
            ["tenants.name"],
            name="fk_glossaries_tenant_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("glossary_id", name="pk_glossaries"),
    )
    op.create_index(
        "ix_glossaries_tenant_organization_id", "glossaries", ["tenant", "organization_id"]
    )
    op.create_table(
        "glossary_entries",
        sa.Column("glossary_id", sa.String(36), nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("case_sensitive", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["glossary_id"],
            ["glossaries.glossary_id"],
            name="fk_glossary_entries_glossary_id_glossaries",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("glossary_id", "position", name="pk_glossary_entries"),
    )
    op.create_table(
        "do_not_translate",
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("term", sa.String(200), nullable=False),
        sa.Column("case_sensitive", sa.Boolean(), nullable=False),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["tenant"],
            ["tenants.name"],
            name="fk_do_not_translate_tenant_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant", "organization_id", "term", name="pk_do_not_translate"),
    )


def downgrade() -> None:
    op.drop_table("do_not_translate")
    op.drop_table("glossary_entries")
    op.drop_index("ix_glossaries_tenant_organization_id", table_name="glossaries")
    op.drop_table("glossaries")
