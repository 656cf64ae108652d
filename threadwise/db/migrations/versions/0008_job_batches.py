"""Job batches: the jobs submitted together that one task of the queue runs.

Revision ID: 0008
Revises: 0007
Created: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        table.add_column(sa.Column("batch_id", sa.String(36), nullable=True))
    # A job stored before ran alone: its batch is itself.
    op.execute("UPDATE jobs SET batch_id = job_id")
    with op.batch_alter_table("jobs") as table:
        table.alter_column("batch_id", existing_type=sa.String(36), nullable=False)
        table.create_index("ix_jobs_batch_id", ["batch_id"])


def downgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        table.drop_index("ix_jobs_batch_id")
        table.drop_column("batch_id")
