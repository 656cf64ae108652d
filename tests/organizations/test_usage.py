"""Organizations' usage: counted in memory, added to the database by flushes that replicas can
make side by side, read with what is not written yet, and summed per UTC month for quotas."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from tests.clock import ManualClock
from threadwise.db.database import Database
from threadwise.db.tables import UsageDaily
from threadwise.organizations import usage as usage_module
from threadwise.organizations.usage import (
    Counts,
    DayUsage,
    QuotaReached,
    Reservation,
    UsageStore,
)

NOW = datetime(2026, 11, 24, 15, 30, tzinfo=UTC)
NOVEMBER = (date(2026, 11, 1), date(2026, 11, 30))


class WallClock:
    """The time of day the test says it is."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def wall() -> WallClock:
    return WallClock()


@pytest.fixture
def stores(database: Database, clock: ManualClock, wall: WallClock) -> Iterator[list[UsageStore]]:
    """Two replicas' stores on one database."""
    built = [UsageStore(database, cache_seconds=5, clock=clock, now=wall) for _ in range(2)]
    yield built
    for store in built:
        store.close()


def add(store: UsageStore, tenant: str, operation: str = "summarize", **fields: Any) -> None:
    counts = {"characters": 100, "prompt_tokens": 50, "completion_tokens": 10} | fields
    when = counts.pop("when", NOW)
    organization = counts.pop("organization", "org-a")
    store.add(tenant, organization, operation, when=when, **counts)


def stored(database: Database, tenant: str) -> list[tuple[Any, ...]]:
    with database.session() as session:
        rows = session.scalars(
            select(UsageDaily).where(UsageDaily.tenant == tenant).order_by(UsageDaily.day)
        )
        return [
            (r.organization_id, r.day, r.operation, r.requests, r.characters, r.prompt_tokens)
            for r in rows
        ]


def test_counted_requests_are_read_at_once_and_written_as_one_row_a_day(
    database: Database, stores: list[UsageStore], tenant: str
) -> None:
    store = stores[0]
    add(store, tenant)
    add(store, tenant, characters=30, prompt_tokens=0, completion_tokens=0)
    add(store, tenant, "translate", characters=300, prompt_tokens=0, completion_tokens=0)
    add(store, tenant, when=NOW - timedelta(days=3))
    add(store, tenant, organization="org-b")
    assert stored(database, tenant) == []  # nothing written on the request's path

    before = store.read(tenant, "org-a", *NOVEMBER)
    assert store.flush()
    after = store.read(tenant, "org-a", *NOVEMBER)
    assert before == after
    assert after.days == (
        DayUsage(date(2026, 11, 21), "summarize", Counts(1, 100, 50, 10)),
        DayUsage(date(2026, 11, 24), "summarize", Counts(2, 130, 50, 10)),
        DayUsage(date(2026, 11, 24), "translate", Counts(1, 300, 0, 0)),
    )
    assert after.of("summarize") == Counts(3, 230, 100, 20)
    assert after.total == Counts(4, 530, 100, 20)
    assert len(stored(database, tenant)) == 4  # org-b's too
    assert store.read(tenant, "org-a", date(2026, 11, 22), date(2026, 11, 24)).total.requests == 3


def test_replicas_add_to_the_same_rows(
    database: Database, stores: list[UsageStore], tenant: str
) -> None:
    for _ in range(2):
        for store in stores:
            add(store, tenant)
            add(store, tenant, "translate")
        for store in stores:
            assert store.flush()
    assert stored(database, tenant) == [
        ("org-a", date(2026, 11, 24), "summarize", 4, 400, 200),
        ("org-a", date(2026, 11, 24), "translate", 4, 400, 200),
    ]
    assert stores[1].read(tenant, "org-a", *NOVEMBER).total == Counts(8, 800, 400, 80)


def test_a_failed_flush_keeps_its_counts_for_the_next(
    database: Database,
    stores: list[UsageStore],
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = stores[0]
    add(store, tenant)
    written = store._write

    def refuse(counted: Any) -> Any:
        raise ConnectionError("the database is away")

    monkeypatch.setattr(store, "_write", refuse)
    with caplog.at_level(logging.WARNING, "threadwise.organizations.usage"):
        assert not store.flush()
    assert "kept for the next try" in caplog.text
    add(store, tenant)  # counted meanwhile
    assert store.read(tenant, "org-a", *NOVEMBER).total.requests == 2
    monkeypatch.setattr(store, "_write", written)
    assert store.flush()
    assert stored(database, tenant) == [("org-a", date(2026, 11, 24), "summarize", 2, 200, 100)]


def test_what_waits_is_bounded(
    stores: list[UsageStore], tenant: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = stores[0]
    store.max_pending = 2
    for organization in ("org-a", "org-b", "org-c", "org-a"):
        add(store, tenant, organization=organization)
    assert store.read(tenant, "org-a", *NOVEMBER).total.requests == 2  # a known row grows
    assert store.read(tenant, "org-c", *NOVEMBER).days == ()
    with caplog.at_level(logging.WARNING, "threadwise.organizations.usage"):
        assert store.flush()
    assert "the usage of 1 requests was not counted" in caplog.text


def test_usage_of_a_tenant_not_in_the_database_is_left_out(
    database: Database, stores: list[UsageStore], tenant: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = stores[0]
    add(store, "external")  # a token of an external issuer may name one
    add(store, tenant)
    with caplog.at_level(logging.WARNING, "threadwise.organizations.usage"):
        assert store.flush()
    assert "tenants not in the database was not kept: external" in caplog.text
    assert len(stored(database, tenant)) == 1


def test_the_month_used_counts_both_replicas_within_the_cache_time(
    stores: list[UsageStore], tenant: str, clock: ManualClock
) -> None:
    mine, other = stores

    def used(store: UsageStore, now: datetime = NOW) -> int:
        return asyncio.run(store.used_this_month(tenant, "org-a", now))

    add(mine, tenant, when=datetime(2026, 10, 31, 23, 59, tzinfo=UTC))  # October's
    add(mine, tenant, when=datetime(2026, 11, 1, 0, 0, tzinfo=UTC))
    assert mine.flush()
    assert used(mine) == 100
    add(mine, tenant, characters=7)
    assert used(mine) == 107  # its own, at once
    assert mine.flush()
    assert used(mine) == 107  # written: counted once
    add(other, tenant, characters=1000)
    assert other.flush()
    assert used(mine) == 107  # the other replica's, from the database once the cache expires
    clock.now += 5
    assert used(mine) == 1107
    assert used(mine, datetime(2026, 10, 15, tzinfo=UTC)) == 100
    assert used(mine, datetime(2026, 12, 1, tzinfo=UTC)) == 0  # a new month starts at zero


def test_parallel_reservations_never_hold_past_the_quota(
    stores: list[UsageStore], tenant: str, clock: ManualClock
) -> None:
    store = stores[0]
    add(store, tenant, characters=30)
    assert store.flush()
    clock.now += 5  # the month's total is read from the database again, by every reservation

    async def reserve_ten() -> list[Reservation | QuotaReached]:
        return await asyncio.gather(
            *(store.reserve(tenant, "org-a", 20, 100, NOW) for _ in range(10))
        )

    held = asyncio.run(reserve_ten())
    granted = [h for h in held if isinstance(h, Reservation)]
    assert len(granted) == 3  # 30 used, and three times 20 held, of 100
    assert {h.used for h in held if isinstance(h, QuotaReached)} == {90}
    for reservation in granted:
        reservation.settle("translate", 0, 0)
    assert store.read(tenant, "org-a", *NOVEMBER).of("translate") == Counts(3, 60, 0, 0)
    assert asyncio.run(store.used_this_month(tenant, "org-a", NOW)) == 90


def test_a_released_reservation_is_not_counted_and_frees_its_characters(
    stores: list[UsageStore], tenant: str
) -> None:
    store = stores[0]

    def reserve(characters: int) -> Reservation | QuotaReached:
        return asyncio.run(store.reserve(tenant, "org-a", characters, 100, NOW))

    first = reserve(80)
    assert isinstance(first, Reservation)
    assert reserve(30) == QuotaReached(80)  # held, though not used
    assert asyncio.run(store.used_this_month(tenant, "org-a", NOW)) == 0
    first.release()
    first.settle("translate", 1, 1)  # ended already: nothing more
    second = reserve(100)
    assert isinstance(second, Reservation)
    second.settle("summarize", 120, 30)
    second.release()  # settled already: nothing more
    assert store.read(tenant, "org-a", *NOVEMBER).total == Counts(1, 100, 120, 30)
    assert reserve(1) == QuotaReached(100)
    assert isinstance(asyncio.run(store.reserve(tenant, "org-a", 1, None, NOW)), Reservation)


def test_close_writes_what_is_left(database: Database, clock: ManualClock, tenant: str) -> None:
    store = UsageStore(database, clock=clock, now=lambda: NOW, flush_seconds=3600)
    store.start()
    add(store, tenant)
    store.close()
    assert len(stored(database, tenant)) == 1


def test_the_thread_flushes_on_its_own(
    database: Database, clock: ManualClock, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = UsageStore(database, clock=clock, now=lambda: NOW, flush_seconds=0.01)
    written = threading.Event()
    flush = store.flush

    def flush_and_tell() -> bool:
        done = flush()
        if stored(database, tenant):
            written.set()
        return done

    monkeypatch.setattr(store, "flush", flush_and_tell)
    add(store, tenant)
    store.start()
    try:
        assert written.wait(10), "no flush wrote the count within 10 s"
    finally:
        store.close()


def test_rows_per_statement(
    database: Database, stores: list[UsageStore], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(usage_module, "_ROWS_PER_STATEMENT", 2)
    for n in range(5):
        add(stores[0], tenant, organization=f"org-{n}")
    assert stores[0].flush()
    assert len(stored(database, tenant)) == 5
