"""Each organization's usage: requests, message characters and model tokens per UTC day and
operation, kept in the database every replica shares.

``add`` only counts in memory: a request never waits for the database. A thread adds what was
counted to the database every ``flush_seconds`` and at shutdown, as increments (``INSERT … ON
CONFLICT DO UPDATE SET n = n + excluded.n``), so that replicas add to a day's row and never
overwrite one another's. A flush that fails keeps its counts for the next one. What is read
includes what this replica has not written yet: a caller sees its last request at once.

A request's characters are held (``reserve``) from before its work until it is counted
(``Reservation.settle``) or fails (``Reservation.release``), and a monthly quota is checked
against what is used and held, in the same step as the hold: requests running side by side
cannot each fit the quota alone and pass it together. Other replicas' requests count once they
are written and the month's total is read again (``cache_seconds``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from typing import Any

import anyio.to_thread
from sqlalchemy import Executable, func, select
from sqlalchemy.dialects import postgresql, sqlite

from threadwise.db import tables
from threadwise.db.database import Database
from threadwise.organizations.usage_days import month_start, next_month, utc_day
from threadwise.ttl_cache import TtlCache

log = logging.getLogger(__name__)

FLUSH_SECONDS = 5.0
# Counts wait in memory per tenant, organization, day and operation: a bound keeps a database
# that stays down (or a flood of organization ids) from filling memory.
MAX_PENDING = 100_000
_ROWS_PER_STATEMENT = 500

_Key = tuple[str, str, date, str]  # tenant, organization, UTC day, operation
_Month = tuple[str, str, date]  # tenant, organization, first day of the UTC month


@dataclass(frozen=True)
class Counts:
    requests: int = 0
    characters: int = 0  # message characters; a translation's once per target language
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.requests + other.requests,
            self.characters + other.characters,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


_COUNTS = tuple(field.name for field in fields(Counts))


@dataclass(frozen=True)
class DayUsage:
    day: date
    operation: str
    counts: Counts


@dataclass(frozen=True)
class UsageReport:
    """An organization's usage from ``first_day`` to ``last_day`` (UTC, both included)."""

    first_day: date
    last_day: date
    days: tuple[DayUsage, ...]  # by day, then operation; only those with requests

    def of(self, operation: str) -> Counts:
        return sum((d.counts for d in self.days if d.operation == operation), Counts())

    @property
    def total(self) -> Counts:
        return sum((d.counts for d in self.days), Counts())


@dataclass(frozen=True)
class QuotaReached:
    """Why ``UsageStore.reserve`` held nothing: the request does not fit the monthly quota."""

    used: int  # characters counted this month and held by running requests, without its own


class UsageStore:
    """Usage counted in memory and added to the database in the background (``start``,
    ``close``); ``read`` and ``used_this_month`` see both."""

    def __init__(
        self,
        database: Database,
        cache_seconds: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        flush_seconds: float = FLUSH_SECONDS,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self.database = database
        self.now = now  # the wall clock that dates requests and months
        self.flush_seconds = flush_seconds
        self.max_pending = max_pending
        self._lock = threading.Lock()  # the counts below and the cached month totals
        self._pending: dict[_Key, Counts] = {}
        self._flushing: dict[_Key, Counts] = {}  # being written now
        self._dropped = 0  # requests not counted since the last flush: the bound was reached
        # Per (tenant, organization): which month, its characters in the database.
        self._months: TtlCache[tuple[str, str], tuple[date, int]] = TtlCache(
            cache_seconds, clock=clock
        )
        self._held: dict[_Month, int] = {}  # characters reserved by requests still running
        # One flush at a time; a read holds it too, so it never sees a flush half done.
        self._flush_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(
        self,
        tenant: str,
        organization: str,
        operation: str,
        characters: int,
        prompt_tokens: int,
        completion_tokens: int,
        when: datetime,
    ) -> None:
        """Count one request, on ``when``'s UTC day; in memory only."""
        key = (tenant, organization, utc_day(when), operation)
        with self._lock:
            self._merge_locked({key: Counts(1, characters, prompt_tokens, completion_tokens)})

    # --- reading -----------------------------------------------------------------------------

    def read(self, tenant: str, organization: str, first_day: date, last_day: date) -> UsageReport:
        """The organization's usage per day and operation (blocking: call it off the loop)."""
        table = tables.UsageDaily
        with self._flush_lock:
            with self.database.session() as session:
                stored = session.scalars(
                    select(table).where(
                        table.tenant == tenant,
                        table.organization_id == organization,
                        table.day >= first_day,
                        table.day <= last_day,
                    )
                ).all()
            found = {
                (row.day, row.operation): Counts(
                    row.requests, row.characters, row.prompt_tokens, row.completion_tokens
                )
                for row in stored
            }
            with self._lock:
                for (t, o, day, operation), counts in self._pending.items():
                    if (t, o) == (tenant, organization) and first_day <= day <= last_day:
                        found[day, operation] = found.get((day, operation), Counts()) + counts
        days = tuple(
            DayUsage(day, operation, found[day, operation]) for day, operation in sorted(found)
        )
        return UsageReport(first_day, last_day, days)

    async def used_this_month(self, tenant: str, organization: str, now: datetime) -> int:
        """The characters the organization used in ``now``'s UTC calendar month: the
        database's total, cached ``cache_seconds`` (other replicas' requests show within
        that), and what this replica has counted since."""
        month = month_start(utc_day(now))
        stored = await self._stored(tenant, organization, month)
        with self._lock:
            return self._used_locked(tenant, organization, month, stored)

    async def reserve(
        self,
        tenant: str,
        organization: str,
        characters: int,
        quota: int | None,
        now: datetime,
        *,
        held_elsewhere: int = 0,
    ) -> Reservation | QuotaReached:
        """Hold ``characters`` of ``now``'s month for a request about to run, if with what
        the organization used, its running requests hold and ``held_elsewhere`` (its queued
        jobs) they fit ``quota`` (None: no quota); else hold nothing."""
        month = month_start(utc_day(now))
        # The database is read before, not in, the step that checks and holds: a request
        # never waits for it holding the lock.
        stored = 0 if quota is None else await self._stored(tenant, organization, month)
        key = (tenant, organization, month)
        with self._lock:
            if quota is not None:
                used = self._used_locked(tenant, organization, month, stored)
                used += self._held.get(key, 0) + held_elsewhere
                if used + characters > quota:
                    return QuotaReached(used)
            self._held[key] = self._held.get(key, 0) + characters
        return Reservation(self, key, characters)

    def _end(
        self, reservation: Reservation, operation: str | None, prompt: int, completion: int
    ) -> None:
        """Let ``reservation``'s characters go, counting the request in the same step when it
        is answered (``operation``): its characters are never both held and counted, nor
        neither."""
        key = reservation.month
        with self._lock:
            left = self._held.get(key, 0) - reservation.characters
            if left > 0:
                self._held[key] = left
            else:
                self._held.pop(key, None)
            if operation is not None:
                tenant, organization, _ = key
                day = (tenant, organization, utc_day(self.now()), operation)
                self._merge_locked({day: Counts(1, reservation.characters, prompt, completion)})

    async def _stored(self, tenant: str, organization: str, month: date) -> int:
        """The characters of the organization's ``month`` in the database, cached
        ``cache_seconds``."""
        cached = self._months.get((tenant, organization))
        if cached is not None and cached[0] == month:
            return cached[1]
        return await anyio.to_thread.run_sync(self._read_month, tenant, organization, month)

    def _read_month(self, tenant: str, organization: str, month: date) -> int:
        table = tables.UsageDaily
        with self._flush_lock:
            with self.database.session() as session:
                stored = session.scalar(
                    select(func.coalesce(func.sum(table.characters), 0)).where(
                        table.tenant == tenant,
                        table.organization_id == organization,
                        table.day >= month,
                        table.day < next_month(month),
                    )
                )
            with self._lock:
                self._months.put((tenant, organization), (month, int(stored or 0)))
                return int(stored or 0)

    def _used_locked(self, tenant: str, organization: str, month: date, stored: int) -> int:
        # A flush may have written counts since ``stored`` was read: they have left the
        # unwritten ones and joined the cached total, which is the one to take then (even
        # once it has expired: it is the total the flushes have added to).
        cached = self._months.peek((tenant, organization))
        if cached is not None and cached[0] == month:
            stored = cached[1]
        return stored + self._unwritten_locked(tenant, organization, month)

    def _unwritten_locked(self, tenant: str, organization: str, month: date) -> int:
        return sum(
            counts.characters
            for counted in (self._pending, self._flushing)
            for (t, o, day, _), counts in counted.items()
            if (t, o) == (tenant, organization) and month_start(day) == month
        )

    # --- writing -----------------------------------------------------------------------------

    def start(self) -> None:
        """Write what was counted every ``flush_seconds``, on a thread of its own."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._flush_often, name="usage", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop writing in the background, and write what is left."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.flush()

    def _flush_often(self) -> None:
        while not self._stop.wait(self.flush_seconds):
            self.flush()

    def flush(self) -> bool:
        """Add what was counted to the database; False if that failed (the counts are kept
        for the next flush)."""
        with self._flush_lock:
            with self._lock:
                self._flushing, self._pending = self._pending, {}
                flushing = self._flushing
                dropped, self._dropped = self._dropped, 0
            if dropped:
                log.warning(
                    "the usage of %d requests was not counted: %d days' counts already waited "
                    "to be written to the database",
                    dropped,
                    self.max_pending,
                )
            if not flushing:
                return True
            try:
                written = self._write(flushing)
            except Exception:
                log.warning(
                    "usage could not be written to the database; kept for the next try",
                    exc_info=True,
                )
                with self._lock:
                    self._flushing = {}
                    self._merge_locked(flushing)
                return False
            with self._lock:
                self._flushing = {}
                for (tenant, organization, day, _), counts in written.items():
                    cached = self._months.peek((tenant, organization))
                    if cached is not None and cached[0] == month_start(day):
                        month, characters = cached
                        self._months.replace(
                            (tenant, organization), (month, characters + counts.characters)
                        )
            return True

    def _merge_locked(self, counted: Mapping[_Key, Counts]) -> None:
        for key, counts in counted.items():
            held = self._pending.get(key)
            if held is None and len(self._pending) >= self.max_pending:
                self._dropped += counts.requests
                continue
            self._pending[key] = counts if held is None else held + counts

    def _write(self, counted: dict[_Key, Counts]) -> dict[_Key, Counts]:
        """Add ``counted`` to the database in one transaction; what was written."""
        with self.database.session() as session, session.begin():
            tenants = {tenant for tenant, *_ in counted}
            known = set(
                session.scalars(select(tables.Tenant.name).where(tables.Tenant.name.in_(tenants)))
            )
            if tenants - known:
                # Tokens of an external issuer may name one; its usage has nowhere to go.
                log.warning(
                    "usage of tenants not in the database was not kept: %s (a tenant exists "
                    "once it has a client)",
                    ", ".join(sorted(tenants - known)),
                )
            written = {key: counts for key, counts in counted.items() if key[0] in known}
            rows = [_row(key, counts) for key, counts in written.items()]
            for start in range(0, len(rows), _ROWS_PER_STATEMENT):
                chunk = rows[start : start + _ROWS_PER_STATEMENT]
                session.execute(_add_to_rows(self.database.dialect, chunk))
        return written


class Reservation:
    """A running request's characters, held by ``UsageStore.reserve`` until it ends: answered
    (``settle``) or not (``release``). Only the first of the two does anything."""

    def __init__(self, store: UsageStore, month: _Month, characters: int) -> None:
        self.store = store
        self.month = month
        self.characters = characters
        self.ended = False

    def settle(self, operation: str, prompt_tokens: int, completion_tokens: int) -> None:
        """Count the answered request: one request, its characters, its model tokens."""
        if not self.ended:
            self.ended = True
            self.store._end(self, operation, prompt_tokens, completion_tokens)

    def release(self) -> None:
        """Let the characters go uncounted: the request failed or was cancelled."""
        if not self.ended:
            self.ended = True
            self.store._end(self, None, 0, 0)


def _row(key: _Key, counts: Counts) -> dict[str, Any]:
    tenant, organization, day, operation = key
    return {
        "tenant": tenant,
        "organization_id": organization,
        "day": day,
        "operation": operation,
        **{name: getattr(counts, name) for name in _COUNTS},
    }


def _add_to_rows(dialect: str, rows: list[dict[str, Any]]) -> Executable:
    """Insert ``rows``, or add their counts to the rows already there."""
    key = ["tenant", "organization_id", "day", "operation"]
    columns = tables.UsageDaily.__table__.c
    if dialect == "postgresql":
        pg = postgresql.insert(tables.UsageDaily).values(rows)
        added = {name: columns[name] + pg.excluded[name] for name in _COUNTS}
        return pg.on_conflict_do_update(index_elements=key, set_=added)
    lite = sqlite.insert(tables.UsageDaily).values(rows)
    added = {name: columns[name] + lite.excluded[name] for name in _COUNTS}
    return lite.on_conflict_do_update(index_elements=key, set_=added)
