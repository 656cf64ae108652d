"""The audit log: token issuance and refusals, and changes to clients.

It records who and what, never a secret or a token: a client id is recorded only when it
has the form of one (a secret pasted into the client-id field is not).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from threadwise.auth.credentials import is_client_id
from threadwise.db.database import Database
from threadwise.db.tables import AuditEvent


@dataclass(frozen=True)
class AuditRecord:
    occurred_at: datetime
    event: str
    tenant: str | None
    client_id: str | None
    address: str | None
    detail: str | None


class AuditLog:
    def __init__(self, database: Database) -> None:
        self.database = database

    @staticmethod
    def add(
        session: Session,
        event: str,
        *,
        tenant: str | None = None,
        client_id: str | None = None,
        address: str | None = None,
        detail: str | None = None,
    ) -> None:
        """Add an event to ``session``'s transaction (committed with the change it records)."""
        session.add(
            AuditEvent(
                occurred_at=datetime.now(UTC),
                event=event,
                tenant=tenant,
                client_id=client_id if client_id and is_client_id(client_id) else None,
                address=address[:64] if address else None,
                detail=detail[:200] if detail else None,
            )
        )

    def record(self, event: str, **details: str | None) -> None:
        """Record an event in a transaction of its own (``details`` as for ``add``)."""
        with self.database.session() as session, session.begin():
            self.add(session, event, **details)

    def recent(self, limit: int = 100) -> list[AuditRecord]:
        """The newest events first."""
        with self.database.session() as session:
            rows = session.scalars(
                select(AuditEvent).order_by(AuditEvent.id.desc()).limit(limit)
            ).all()
            return [
                AuditRecord(
                    row.occurred_at, row.event, row.tenant, row.client_id, row.address, row.detail
                )
                for row in rows
            ]
