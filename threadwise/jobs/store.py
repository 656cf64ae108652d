"""The job records every replica shares: a job's request, state, progress, result and webhook.

The queue (``jobs/queue.py``) only says which job to run next; what a job is and how far it
got is here, in the database. A state changes by a conditional ``UPDATE`` (``… WHERE status
IN (…)``), so a cancellation and a finish racing each other on two replicas end in one of
the two, never both. The methods block: callers run them on a thread (``anyio.to_thread``).
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import (
    Table,
    Text,
    and_,
    bindparam,
    case,
    column,
    delete,
    func,
    literal,
    or_,
    select,
    tuple_,
    update,
    values,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import Update

from threadwise.db.database import Database
from threadwise.db.tables import Job

# A submission's Idempotency-Key, as its organization's: (tenant, organization, key).
IdempotencyKey = tuple[str, str, str]
Status = Literal["queued", "running", "completed", "failed", "cancelled"]
ACTIVE: tuple[Status, ...] = ("queued", "running")
ENDED: tuple[Status, ...] = ("completed", "failed", "cancelled")
# A webhook's own state: the job has not ended, delivery under way, taken, or given up.
WebhookStatus = Literal["waiting", "pending", "delivered", "failed"]
JOBS: Table = Job.__table__  # type: ignore[assignment]  # a Table, typed as a FromClause
# Ids per ``IN (…)``: well under SQLite's 999 bound parameters.
IN_LIMIT = 500


def _utc_now() -> datetime:
    return datetime.now(UTC)


def new_job_id() -> str:
    return f"job_{secrets.token_hex(16)}"


@dataclass(frozen=True)
class JobRecord:
    """A job as stored; JSON columns decoded."""

    job_id: str
    batch_id: str
    tenant: str
    organization_id: str
    operation: str
    status: Status
    body: dict[str, Any]
    request_id: str | None
    idempotency_key: str | None
    fingerprint: str | None
    reserved_characters: int
    progress_done: int
    progress_total: int
    partial: list[Any]
    result: dict[str, Any] | None
    error_code: str | None
    error_message: str | None
    runs: int
    webhook_url: str | None
    webhook_status: WebhookStatus | None
    webhook_message_id: str | None
    webhook_attempts: list[dict[str, Any]]
    webhook_next_at: datetime | None
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    expires_at: datetime | None

    @property
    def ended(self) -> bool:
        return self.status in ENDED


@dataclass(frozen=True)
class NewJob:
    """What a submission stores."""

    tenant: str
    organization_id: str
    operation: str
    body: dict[str, Any]
    request_id: str | None
    characters: int
    parts: int
    idempotency_key: str | None = None
    fingerprint: str | None = None
    webhook_url: str | None = None
    # The batch it runs in with others submitted together; None: alone.
    batch_id: str | None = None


@dataclass(frozen=True)
class End:
    """How a job ended: its status, and its result or error."""

    job_id: str
    status: Status
    result: dict[str, Any] | None = None
    error: tuple[str, str] | None = None


@dataclass(frozen=True)
class AttemptRecord:
    """A job's webhook attempts (those made, the last one added), with what comes next."""

    job_id: str
    attempts: Sequence[dict[str, Any]]
    status: WebhookStatus
    next_at: datetime | None


class IdempotencyConflict(Exception):
    """A job with this idempotency key exists for another request."""


@dataclass(frozen=True)
class Page:
    jobs: list[JobRecord]
    next_cursor: str | None


class JobStore:
    """Create, read, advance and end jobs; ``now`` is the clock records are dated by."""

    def __init__(self, database: Database, now: Callable[[], datetime] = _utc_now) -> None:
        self.database = database
        self.now = now

    # --- submission and reading ------------------------------------------------------------

    def create(self, job: NewJob) -> tuple[JobRecord, bool]:
        """Store ``job`` as queued; with an idempotency key already used for the same
        request, the job stored then and False (``IdempotencyConflict`` for another)."""
        row = self._row(job, self.now())
        try:
            with self.database.session() as session, session.begin():
                session.add(row)
            return _record(row), True
        except IntegrityError:
            if job.idempotency_key is None:
                raise
        earlier = self.find(job.tenant, job.organization_id, job.idempotency_key)
        if earlier is None:  # expired and swept in between: store it anew
            return self.create(job)
        if earlier.fingerprint != job.fingerprint:
            raise IdempotencyConflict(earlier.job_id)
        return earlier, False

    def create_many(self, jobs: Sequence[NewJob]) -> list[tuple[JobRecord, bool] | Exception]:
        """Store ``jobs`` as queued, in one transaction; for each, what ``create`` answers
        (or raises). One whose idempotency key was used before makes the group go one by one."""
        now = self.now()
        rows = [self._row(job, now) for job in jobs]
        try:
            with self.database.session() as session, session.begin():
                session.add_all(rows)
            return [(_record(row), True) for row in rows]
        except IntegrityError:
            pass
        answers: list[tuple[JobRecord, bool] | Exception] = []
        for job in jobs:
            try:
                answers.append(self.create(job))
            except Exception as exc:
                answers.append(exc)
        return answers

    @staticmethod
    def _row(job: NewJob, now: datetime) -> Job:
        job_id = new_job_id()
        return Job(
            job_id=job_id,
            batch_id=job.batch_id or job_id,
            tenant=job.tenant,
            organization_id=job.organization_id,
            operation=job.operation,
            status="queued",
            body=json.dumps(job.body, ensure_ascii=False, separators=(",", ":")),
            request_id=job.request_id,
            idempotency_key=job.idempotency_key,
            fingerprint=job.fingerprint,
            reserved_characters=job.characters,
            progress_done=0,
            progress_total=job.parts,
            runs=0,
            webhook_url=job.webhook_url,
            webhook_status="waiting" if job.webhook_url else None,
            webhook_attempts="[]",
            created_at=now,
            updated_at=now,
        )

    def find(self, tenant: str, organization: str, key: str) -> JobRecord | None:
        """The organization's job submitted with idempotency ``key``, if any."""
        return self.find_many([(tenant, organization, key)])[0]

    def find_many(self, keys: Sequence[IdempotencyKey]) -> list[JobRecord | None]:
        """For each (tenant, organization, key), the job submitted with it, if any: what
        ``find`` answers for each, in one query."""
        found: dict[IdempotencyKey, JobRecord] = {}
        wanted = list(dict.fromkeys(keys))
        with self.database.session() as session:
            for start in range(0, len(wanted), IN_LIMIT // 3):
                rows = session.scalars(
                    select(Job).where(
                        tuple_(Job.tenant, Job.organization_id, Job.idempotency_key).in_(
                            wanted[start : start + IN_LIMIT // 3]
                        )
                    )
                )
                for row in rows:
                    assert row.idempotency_key is not None
                    found[row.tenant, row.organization_id, row.idempotency_key] = _record(row)
        return [found.get(key) for key in keys]

    def get(self, job_id: str, expired: bool = False) -> JobRecord | None:
        """The job, unless there is none or its results have expired (and not ``expired``:
        its webhook may still be retried)."""
        with self.database.session() as session:
            row = session.get(Job, job_id)
            if row is None:
                return None
            if not expired and row.expires_at is not None and row.expires_at <= self.now():
                return None
            return _record(row)

    def page(
        self,
        tenant: str,
        organizations: Collection[str],
        *,
        status: Status | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> Page:
        """The organizations' jobs, newest first, ``limit`` at a time from ``cursor``
        (``ValueError`` for a cursor this did not give)."""
        query = select(Job).where(
            Job.tenant == tenant,
            Job.organization_id.in_(list(organizations)),
            or_(Job.expires_at.is_(None), Job.expires_at > self.now()),
        )
        if status is not None:
            query = query.where(Job.status == status)
        if cursor is not None:
            created, job_id = _read_cursor(cursor)
            query = query.where(
                or_(
                    Job.created_at < created,
                    and_(Job.created_at == created, Job.job_id < job_id),
                )
            )
        query = query.order_by(Job.created_at.desc(), Job.job_id.desc()).limit(limit + 1)
        with self.database.session() as session:
            rows = list(session.scalars(query))
        records = [_record(row) for row in rows[:limit]]
        more = len(rows) > limit
        return Page(records, _cursor(records[-1]) if more and records else None)

    def ended_among(self, job_ids: Collection[str]) -> list[JobRecord]:
        """Those of ``job_ids`` that have ended (what a watcher of jobs asks, in one query per
        ``IN_LIMIT`` ids)."""
        ids = sorted(set(job_ids))
        ended: list[JobRecord] = []
        with self.database.session() as session:
            for start in range(0, len(ids), IN_LIMIT):
                query = select(Job).where(
                    Job.job_id.in_(ids[start : start + IN_LIMIT]), Job.status.in_(ENDED)
                )
                ended.extend(_record(row) for row in session.scalars(query))
        return ended

    def active_count(self, tenant: str, organization: str) -> tuple[int, int]:
        """The organization's jobs not ended, and the characters they hold."""
        with self.database.session() as session:
            count, held = session.execute(
                select(func.count(), func.coalesce(func.sum(Job.reserved_characters), 0)).where(
                    Job.tenant == tenant,
                    Job.organization_id == organization,
                    Job.status.in_(ACTIVE),
                )
            ).one()
        return int(count), int(held)

    def active(self) -> list[JobRecord]:
        """Every job not ended, oldest first: what a starting server queues again."""
        with self.database.session() as session:
            query = select(Job).where(Job.status.in_(ACTIVE)).order_by(Job.created_at)
            return [_record(row) for row in session.scalars(query)]

    def due_webhooks(self) -> list[tuple[str, datetime]]:
        """Jobs whose webhook is still to be delivered, and when."""
        with self.database.session() as session:
            query = select(Job.job_id, Job.webhook_next_at).where(Job.webhook_status == "pending")
            return [(job_id, at or self.now()) for job_id, at in session.execute(query)]

    def depth(self) -> tuple[int, float]:
        """Jobs queued, and the seconds the oldest of them has waited (0 with none)."""
        with self.database.session() as session:
            count, oldest = session.execute(
                select(func.count(), func.min(Job.created_at)).where(Job.status == "queued")
            ).one()
        if not count or oldest is None:
            return 0, 0.0
        if oldest.tzinfo is None:  # SQLite's aggregate comes back as stored, without a zone
            oldest = oldest.replace(tzinfo=UTC)
        return int(count), max(0.0, (self.now() - oldest).total_seconds())

    # --- a worker's steps ------------------------------------------------------------------

    def claim(self, batch_id: str) -> list[JobRecord]:
        """Mark the batch's jobs not ended running (again, if their last worker died); none
        once they have all ended."""
        now = self.now()
        with self.database.session() as session, session.begin():
            rows = session.execute(
                update(JOBS)
                .where(JOBS.c.batch_id == batch_id, JOBS.c.status.in_(ACTIVE))
                .values(
                    status="running",
                    runs=JOBS.c.runs + 1,
                    started_at=func.coalesce(JOBS.c.started_at, now),
                    updated_at=now,
                )
                .returning(*JOBS.c)
            )
            return sorted((_record(row) for row in rows), key=lambda job: job.job_id)

    def batch(self, batch_id: str) -> list[JobRecord]:
        """Every job of the batch, its results expired or not."""
        with self.database.session() as session:
            query = select(Job).where(Job.batch_id == batch_id).order_by(Job.job_id)
            return [_record(row) for row in session.scalars(query)]

    def record_part(self, job_id: str, partial: Sequence[Any], counted: int) -> bool:
        """Keep the answers of the parts done, and let go of the ``counted`` characters now
        counted as used; False if the job was cancelled meanwhile."""
        now = self.now()
        with self.database.session() as session, session.begin():
            changed = session.execute(
                update(Job)
                .where(Job.job_id == job_id, Job.status == "running")
                .values(
                    progress_done=len(partial),
                    partial=json.dumps(list(partial), ensure_ascii=False),
                    reserved_characters=func.max(0, Job.reserved_characters - counted)
                    if self.database.dialect == "sqlite"
                    else func.greatest(0, Job.reserved_characters - counted),
                    updated_at=now,
                )
            )
            return _changed(changed)

    def finish(
        self,
        job_id: str,
        status: Status,
        *,
        retention: timedelta,
        result: dict[str, Any] | None = None,
        error: tuple[str, str] | None = None,
    ) -> JobRecord | None:
        """End a job not ended yet (``finish_many`` for one); None if it had already ended."""
        ended = self.finish_many([End(job_id, status, result, error)], retention=retention)
        return ended[0] if ended else None

    def finish_many(self, ends: Sequence[End], *, retention: timedelta) -> list[JobRecord]:
        """End the jobs not ended yet, in one transaction: each one's result or error kept
        until ``retention`` from now, its characters let go, its webhook (if any) due now.
        The jobs so ended (not those that had ended already)."""
        given = [
            {
                "job_id": end.job_id,
                "status": end.status,
                "result": None
                if end.result is None
                else json.dumps(end.result, ensure_ascii=False),
                "error_code": end.error[0] if end.error else None,
                "error_message": end.error[1] if end.error else None,
                "message_id": f"msg_{secrets.token_hex(16)}",
            }
            for end in ends
        ]
        if not given:
            return []
        now = self.now()
        if self.database.dialect == "postgresql":
            # One statement: UPDATE … FROM (VALUES …), a row of ends for every job.
            listed = values(*(column(name, Text) for name in given[0]), name="given")
            ending = listed.data([tuple(end.values()) for end in given]).c
            statements = [_ending(ending, now, retention)]
        else:  # SQLite names no VALUES columns: a statement a job
            statements = [
                _ending({name: literal(value, Text) for name, value in end.items()}, now, retention)
                for end in given
            ]
        with self.database.session() as session, session.begin():
            return [_record(row) for statement in statements for row in session.execute(statement)]

    def record_attempts(self, records: Sequence[AttemptRecord]) -> None:
        """Keep each job's webhook attempts with what comes next, in one transaction (one
        round trip: the driver's executemany): a job's deliveries are made one after another
        (its first in its batch's task, each retry in the queue under the job's lock)."""
        if not records:
            return
        now = self.now()
        statement = (
            update(JOBS)
            .where(JOBS.c.job_id == bindparam("the_job"))
            .values(
                webhook_attempts=bindparam("given_attempts"),
                webhook_status=bindparam("given_status"),
                webhook_next_at=bindparam("given_next_at"),
                updated_at=now,
            )
        )
        rows = [
            {
                "the_job": record.job_id,
                "given_attempts": json.dumps(list(record.attempts), ensure_ascii=False),
                "given_status": record.status,
                "given_next_at": record.next_at,
            }
            for record in records
        ]
        with self.database.session() as session, session.begin():
            session.connection().execute(statement, rows)

    def sweep(self) -> int:
        """Remove the jobs whose results have expired; how many. A job whose webhook is
        still being retried stays until that ends."""
        with self.database.session() as session, session.begin():
            removed = session.execute(
                delete(Job).where(
                    Job.expires_at <= self.now(),
                    or_(Job.webhook_status.is_(None), Job.webhook_status != "pending"),
                )
            )
            return int(getattr(removed, "rowcount", 0) or 0)


def _ending(end: Any, now: datetime, retention: timedelta) -> Update:
    """The end of the job ``end["job_id"]`` names (``end``: its given columns), unless it
    has ended already."""
    has_webhook = JOBS.c.webhook_url.is_not(None)
    return (
        update(JOBS)
        .where(JOBS.c.job_id == end["job_id"], JOBS.c.status.in_(ACTIVE))
        .values(
            status=end["status"],
            finished_at=now,
            updated_at=now,
            expires_at=now + retention,
            reserved_characters=0,
            partial=None,
            result=end["result"],
            error_code=end["error_code"],
            error_message=end["error_message"],
            progress_done=case(
                (end["status"] == "completed", JOBS.c.progress_total), else_=JOBS.c.progress_done
            ),
            # The job's end and, if it has a webhook, the delivery now due.
            webhook_status=case((has_webhook, "pending"), else_=None),
            webhook_next_at=case((has_webhook, now), else_=None),
            webhook_message_id=case((has_webhook, end["message_id"]), else_=None),
        )
        .returning(*JOBS.c)
    )


def _changed(result: Any) -> bool:
    return bool(getattr(result, "rowcount", 0))


def _record(row: Any) -> JobRecord:
    """A record from a ``Job`` or a row of the table's columns."""
    return JobRecord(
        job_id=row.job_id,
        batch_id=row.batch_id,
        tenant=row.tenant,
        organization_id=row.organization_id,
        operation=row.operation,
        status=row.status,  # written only from Status
        body=json.loads(row.body),
        request_id=row.request_id,
        idempotency_key=row.idempotency_key,
        fingerprint=row.fingerprint,
        reserved_characters=row.reserved_characters,
        progress_done=row.progress_done,
        progress_total=row.progress_total,
        partial=json.loads(row.partial) if row.partial else [],
        result=json.loads(row.result) if row.result else None,
        error_code=row.error_code,
        error_message=row.error_message,
        runs=row.runs,
        webhook_url=row.webhook_url,
        webhook_status=row.webhook_status,  # written only from WebhookStatus
        webhook_message_id=row.webhook_message_id,
        webhook_attempts=json.loads(row.webhook_attempts or "[]"),
        webhook_next_at=row.webhook_next_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        expires_at=row.expires_at,
    )


def _cursor(record: JobRecord) -> str:
    text = f"{record.created_at.isoformat()}|{record.job_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _read_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created, _, job_id = text.partition("|")
        when = datetime.fromisoformat(created)
    except ValueError as exc:  # binascii.Error and UnicodeDecodeError are ValueErrors
        raise ValueError(f"{cursor[:64]!r} is not a cursor this server gave.") from exc
    if not job_id or when.tzinfo is None:
        raise ValueError(f"{cursor[:64]!r} is not a cursor this server gave.")
    return when, job_id
