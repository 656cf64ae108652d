"""Jobs: asynchronous summarize and translate requests, and an organization's default webhook.

Revision ID: 0007
Revises: 0006
Created: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("organization_settings") as table:
        table.add_column(sa.Column("webhook_url", sa.Text(), nullable=True))
    op.create_table(
        "jobs",
        sa.Column("job_id", sa.String(36), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("organization_id", sa.String(256), nullable=False),
        sa.Column("operation", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("request_id", sa.Text(), nullable=True),
        sa.Column("idempotency_key", sa.String(256), nullable=True),
        sa.Column("fingerprint", sa.String(64), nullable=True),
        sa.Column("reserved_characters", sa.BigInteger(), nullable=False),
        sa.Column("progress_done", sa.Integer(), nullable=False),
        sa.Column("progress_total", sa.Integer(), nullable=False),
        sa.Column("partial", sa.Text(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("webhook_url", sa.Text(), nullable=True),
        sa.Column("webhook_status", sa.String(16), nullable=True),
        sa.Column("webhook_message_id", sa.String(64), nullable=True),
        sa.Column("webhook_attempts", sa.Text(), nullable=True),
        _when("webhook_next_at", nullable=True),
        _when("created_at"),
        _when("updated_at"),
        _when("started_at", nullable=True),
        _when("finished_at", nullable=True),
        _when("expires_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant"], ["tenants.name"], name="fk_jobs_tenant_tenants", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("job_id", name="pk_jobs"),
    )
    op.create_index(
        "ix_jobs_tenant_organization_id", "jobs", ["tenant", "organization_id", "created_at"]
    )
    op.create_index("ix_jobs_status", "jobs", ["status"])
    op.create_index("ix_jobs_expires_at", "jobs", ["expires_at"])
    op.create_index(
        "ix_jobs_idempotency",
        "jobs",
        ["tenant", "organization_id", "idempotency_key"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ix_jobs_idempotency", "jobs")
    op.drop_index("ix_jobs_expires_at", "jobs")
    op.drop_index("ix_jobs_status", "jobs")
    op.drop_index("ix_jobs_tenant_organization_id", "jobs")
    op.drop_table("jobs")
    with op.batch_alter_table("organization_settings") as table:
        table.drop_column("webhook_url")
