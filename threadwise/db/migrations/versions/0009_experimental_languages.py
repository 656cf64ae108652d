"""Experimental languages: whether an organization's requests may use translation directions
labelled experimental.

Revision ID: 0009
Revises: 0008
Created: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("organization_settings") as table:
        table.add_column(
            sa.Column(
                "experimental_languages",
                sa.Boolean(),
                nullable=False,
                server_default=sa.false(),
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("organization_settings") as table:
        table.drop_column("experimental_languages")
