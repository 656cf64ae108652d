"""The audit log: what is recorded (never a secret), and repeated events counted, not written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clock import ManualClock
from threadwise.auth.audit import AuditEntry, AuditLog, RepeatedEvents
from threadwise.db.database import Database

CLIENT_ID = "twc_" + "0123456789abcdef01234567"


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[AuditLog]:
    database = Database(f"sqlite:///{tmp_path / 'threadwise.db'}")
    database.upgrade()
    yield AuditLog(database)
    database.close()


def test_events_are_read_back_newest_first(audit: AuditLog) -> None:
    audit.record("token_issued", tenant="acme", client_id=CLIENT_ID, address="10.0.0.1")
    audit.record("client_created", tenant="acme", detail="org-a")
    newest, oldest = audit.recent()
    assert (newest.event, newest.detail, newest.client_id) == ("client_created", "org-a", None)
    assert (oldest.event, oldest.tenant, oldest.client_id) == ("token_issued", "acme", CLIENT_ID)
    assert oldest.address == "10.0.0.1" and oldest.occurred_at is not None
    assert [r.event for r in audit.recent(limit=1)] == ["client_created"]


def test_what_is_not_a_client_id_is_not_recorded_and_long_fields_are_cut(
    audit: AuditLog,
) -> None:
    audit.record("token_refused", client_id="a-pasted-secret", address="a" * 100, detail="d" * 300)
    [record] = audit.recent()
    assert record.client_id is None
    assert record.address == "a" * 64 and record.detail == "d" * 200


def test_the_first_event_of_a_source_is_recorded_at_once_the_repeats_counted() -> None:
    clock = ManualClock()
    repeated = RepeatedEvents(60, clock)
    first = repeated.seen("10.0.0.1", "rate_limited", address="10.0.0.1")
    assert first == [AuditEntry("rate_limited", {"address": "10.0.0.1"})]
    assert repeated.seen("10.0.0.1", "rate_limited", address="10.0.0.1") == []
    assert repeated.seen("10.0.0.1", "rate_limited", address="10.0.0.1") == []
    assert repeated.seen("10.0.0.2", "rate_limited") == [AuditEntry("rate_limited", {})]
    clock.now = 60
    # The first window is over: its count is recorded with the next event, which opens one.
    assert repeated.seen("10.0.0.1", "rate_limited", address="10.0.0.1") == [
        AuditEntry(
            "rate_limited", {"address": "10.0.0.1", "detail": "rate_limited: 2 more within 60 s"}
        ),
        AuditEntry("rate_limited", {"address": "10.0.0.1"}),
    ]


def test_a_window_without_repeats_closes_silently_and_flush_closes_all() -> None:
    clock = ManualClock()
    repeated = RepeatedEvents(10, clock)
    repeated.seen("a", "refused", detail="bad secret")
    repeated.seen("b", "refused")
    repeated.seen("b", "refused")
    clock.now = 5
    assert repeated.seen("c", "refused") == [AuditEntry("refused", {})]
    assert repeated.flush() == [AuditEntry("refused", {"detail": "refused: 1 more within 10 s"})]
    assert repeated.flush() == []
