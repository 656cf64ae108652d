"""The audit log: token issuance and refusals, and changes to clients.

It records who and what, never a secret or a token: a client id is recorded only when it
has the form of one (a secret pasted into the client-id field is not).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class _Window:
    opened: float
    event: str
    details: dict[str, str | None]
    repeats: int = 0


@dataclass(frozen=True)
class AuditEntry:
    """An event to record: ``AuditLog.record(entry.event, **entry.details)``."""

    event: str
    details: dict[str, str | None] = field(default_factory=dict)


class RepeatedEvents:
    """An event a source may repeat as fast as it can send requests (a rate-limited address
    refused again and again): the first of each source in a window is recorded at once, the
    rest only counted, and their number recorded once the window is over. A flood thus writes
    at most two rows a source a window, not one per request, which would let anyone fill the
    database and keep it busy without a token.

    Bookkeeping only, on the event loop: the caller records what ``seen`` and ``flush``
    return (``AuditLog.record`` blocks)."""

    def __init__(self, window_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.window_seconds = window_seconds
        self.clock = clock
        # By source, in the order their windows opened: the oldest are closed first.
        self._windows: dict[str, _Window] = {}

    def seen(self, source: str, event: str, **details: str | None) -> list[AuditEntry]:
        """What to record now that ``source`` caused ``event`` (``details`` as for ``add``)."""
        now = self.clock()
        due = self._close(lambda window: now - window.opened >= self.window_seconds)
        window = self._windows.get(source)
        if window is not None:
            window.repeats += 1
            return due
        self._windows[source] = _Window(now, event, details)
        return [*due, AuditEntry(event, details)]

    def flush(self) -> list[AuditEntry]:
        """The counts of every open window (at shutdown)."""
        return self._close(lambda _: True)

    def _close(self, over: Callable[[_Window], bool]) -> list[AuditEntry]:
        entries = []
        while self._windows:
            source, window = next(iter(self._windows.items()))
            if not over(window):
                break
            del self._windows[source]
            if window.repeats:
                detail = window.details.get("detail") or window.event
                counted = f"{detail}: {window.repeats} more within {self.window_seconds:g} s"
                entries.append(AuditEntry(window.event, {**window.details, "detail": counted}))
        return entries
