"""The jobs service with its real store (SQLite) and queue (in-process), and a stand-in for the
operations it runs (their own tests are elsewhere): cancellation while queued and while
running, a restart that goes on from the last finished part, the characters held against
the quota, and busy spells waited out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import minimal_body, until
from threadwise.auth.gate import Limits, Principal
from threadwise.auth.tokens import Claims
from threadwise.db.database import Database
from threadwise.db.tables import Tenant
from threadwise.errors import ServiceError
from threadwise.jobs.notify import WebhookNotifier
from threadwise.jobs.queue import queue_for
from threadwise.jobs.store import AttemptRecord, JobRecord, JobStore, NewJob
from threadwise.organizations.policies import OrganizationPolicy
from threadwise.payload import charged_characters, validate
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.serving.admission import Admitted
from threadwise.serving.jobs import JobLimits, Jobs
from threadwise.serving.operations import Operation
from threadwise.webhooks.secret_store import WebhookSecretStore

WAIT = 60.0
CALLER = Principal(
    Claims("acme", "client-1", frozenset({"org-1"}), "", "token-1", 0.0), Limits(60, 10_000)
)


class Operations:
    """Answers each part with its conversation id; a part named in ``hold`` waits for
    ``release`` (and notes that it started); a part in ``refuse`` fails once with it."""

    def __init__(self) -> None:
        self.ran: list[str] = []  # the parts run to the end, by their idempotency keys
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.hold: set[int] = set()
        self.refuse: dict[int, ServiceError] = {}

    async def check(
        self, operation: Operation, body: MessageBody, *, tenant: str
    ) -> OrganizationPolicy:
        if body.request.settings.overrideOutputLanguage == "tlh":
            raise ServiceError(ErrorCode.UNSUPPORTED_LANGUAGE, "No Klingon.")
        return OrganizationPolicy()

    async def check_quota(self, *args: Any) -> None:
        pass

    async def run(self, operation: Operation, body: MessageBody, **kwargs: Any) -> Any:
        [conversation] = body.request.scope.conversations
        part = int(str(conversation.conversationId).rsplit("-", 1)[1])
        # A model's part has a key of its own; a fast one none (it is named by its part).
        key: str = kwargs["idempotency_key"] or f"fast:{part}"
        if part in self.refuse:
            raise self.refuse.pop(part)
        if part in self.hold:
            self.started.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        self.ran.append(key)
        return [[ResponseItem(content=f"done {conversation.conversationId}")]]


@pytest.fixture
def database(tmp_path: Path) -> Database:
    database = Database(f"sqlite:///{tmp_path / 'jobs.db'}")
    database.upgrade()
    with database.session() as session, session.begin():
        session.add(Tenant(name="acme", created_at=datetime.now(UTC)))
    return database


def body(conversations: int = 3, *, fast: bool = False) -> MessageBody:
    mode = {"translationMode": "fast"} if fast else {}
    data = minimal_body(settings={"targetLanguages": ["es-ES"], **mode})
    first = data["request"]["scope"]["conversations"][0]
    data["request"]["scope"]["conversations"] = [
        {**first, "conversationId": f"conv-{n}"} for n in range(conversations)
    ]
    return validate(MessageBody, data)


def admitted(message: MessageBody) -> Admitted:
    return Admitted("translate", CALLER, message, charged_characters(message, "translate"))


@asynccontextmanager
async def jobs(
    database: Database, operations: Operations, *, worker: bool = True
) -> AsyncIterator[Jobs]:
    store = JobStore(database)
    queue = queue_for("sqlite://", stalled_seconds=30)
    notifier = WebhookNotifier(store, WebhookSecretStore(database), queue)

    async def no_pause(_: float) -> None:
        await asyncio.sleep(0)

    service = Jobs(
        store=store,
        queue=queue,
        operations=operations,  # type: ignore[arg-type]
        notifier=notifier,
        # One batch open throughout: which jobs share one does not hang on the clock.
        limits=JobLimits(
            retention=timedelta(hours=1), max_queued=5, grace_seconds=0, batch_seconds=3600
        ),
        sleep=no_pause,
    )
    if worker:
        await service.start()
    else:
        await queue.open()
    try:
        yield service
    finally:
        if worker:
            await service.stop()
        else:
            await queue.close()


async def ended(service: Jobs, job_id: str) -> JobRecord:
    """The job once it has ended (read from the store, as a client's GET does)."""
    await until(lambda: (job := service.store.get(job_id)) is not None and job.ended, WAIT)
    return await service.get(CALLER, job_id)


def test_a_job_runs_every_part_once_and_joins_their_answers(database: Database) -> None:
    async def scenario() -> tuple[JobRecord, list[str]]:
        operations = Operations()
        async with jobs(database, operations) as service:
            job, created = await service.submit(
                admitted(body()), webhook_url=None, idempotency_key=None
            )
            assert created and job.status == "queued" and job.progress_total == 3
            return await ended(service, job.job_id), operations.ran

    job, ran = asyncio.run(scenario())
    assert job.status == "completed" and (job.progress_done, job.progress_total) == (3, 3)
    assert ran == [f"{job.job_id}:{n}" for n in range(3)]
    assert job.result is not None and job.reserved_characters == 0
    [result] = job.result["message"]["results"]
    assert [i["content"] for i in result["response"]] == [f"done conv-{n}" for n in range(3)]


def test_a_job_cancelled_while_queued_never_runs_and_holds_nothing(database: Database) -> None:
    async def scenario() -> tuple[JobRecord, JobRecord, list[str], tuple[int, int]]:
        operations = Operations()
        async with jobs(database, operations, worker=False) as service:
            job, _ = await service.submit(admitted(body()), webhook_url=None, idempotency_key=None)
            held = await asyncio.to_thread(service.store.active_count, "acme", "org-1")
            assert held == (1, job.reserved_characters) and job.reserved_characters > 0
            cancelled = await service.cancel(CALLER, job.job_id)
        async with jobs(database, operations) as service:
            # A worker that would have run it first, were it still queued (one model slot,
            # taken in order): a job submitted after it ends, and the cancelled one never ran.
            later, _ = await service.submit(
                admitted(body(1)), webhook_url=None, idempotency_key=None
            )
            await ended(service, later.job_id)
            after = await service.get(CALLER, job.job_id)
            held = await asyncio.to_thread(service.store.active_count, "acme", "org-1")
        return cancelled, after, operations.ran, held

    cancelled, after, ran, held = asyncio.run(scenario())
    assert cancelled.status == after.status == "cancelled"
    assert not [key for key in ran if key.startswith(cancelled.job_id)]
    assert after.error_code == "REQUEST_CANCELLED" and held == (0, 0)


def test_fast_jobs_submitted_together_run_as_one_batch(database: Database) -> None:
    """Fast jobs submitted while a batch is open join it, which one run does (passing over
    one cancelled meanwhile); a job for the language model stays alone."""

    async def scenario() -> tuple[list[JobRecord], JobRecord, list[str], list[str]]:
        operations = Operations()
        async with jobs(database, operations, worker=False) as service:
            submitted = await asyncio.gather(
                *(
                    service.submit(admitted(message), webhook_url=None, idempotency_key=None)
                    for message in [body(1, fast=True)] * 3 + [body(1)]
                )
            )
            *fast, model = [job for job, _ in submitted]
            await service.cancel(CALLER, fast[0].job_id)
            await service.run(fast[0].batch_id)
            await service.run(fast[0].batch_id)  # again: nothing is left to do
            ended: list[str] = [(await service.get(CALLER, job.job_id)).status for job in fast]
            return fast, model, operations.ran, ended

    fast, model, ran, ended = asyncio.run(scenario())
    assert len({job.batch_id for job in fast}) == 1 and fast[0].batch_id.startswith("bat_")
    assert model.batch_id == model.job_id
    assert ended == ["cancelled", "completed", "completed"]
    assert ran == ["fast:0", "fast:0"]  # the two not cancelled, without idempotency keys


def test_a_job_that_joins_a_batch_after_its_run_began_is_run_too(database: Database) -> None:
    async def scenario() -> tuple[JobRecord, JobRecord]:
        operations = Operations()
        async with jobs(database, operations) as service:
            first, _ = await service.submit(
                admitted(body(1, fast=True)), webhook_url=None, idempotency_key=None
            )
            await ended(service, first.job_id)
            later, _ = await service.submit(
                admitted(body(1, fast=True)), webhook_url=None, idempotency_key=None
            )
            return first, await ended(service, later.job_id)

    first, later = asyncio.run(scenario())
    assert later.batch_id == first.batch_id and later.status == "completed"


def test_a_cancelled_jobs_webhook_is_delivered(database: Database) -> None:
    async def scenario() -> JobRecord | None:
        operations = Operations()
        operations.hold = {0}
        async with jobs(database, operations) as service:
            service.limits = replace(service.limits, allowed_hosts=("127.0.0.1:9",))
            job, _ = await service.submit(
                admitted(body(1)), webhook_url="http://127.0.0.1:9/c", idempotency_key=None
            )
            await asyncio.wait_for(operations.started.wait(), WAIT)
            await service.cancel(CALLER, job.job_id)
            # Its one attempt (this organization has no signing secret: it fails, recorded).
            await until(lambda: service.store.get(job.job_id).webhook_attempts, WAIT)  # type: ignore[union-attr]
            return service.store.get(job.job_id)

    job = asyncio.run(scenario())
    assert job is not None and job.status == "cancelled"
    [attempt] = job.webhook_attempts
    assert "signing secret" in attempt["error"]


def test_a_job_cancelled_while_running_stops_and_stays_cancelled(database: Database) -> None:
    async def scenario() -> tuple[JobRecord, list[str]]:
        operations = Operations()
        operations.hold = {1}
        async with jobs(database, operations) as service:
            job, _ = await service.submit(admitted(body()), webhook_url=None, idempotency_key=None)
            await asyncio.wait_for(operations.started.wait(), WAIT)
            await service.cancel(CALLER, job.job_id)
            await asyncio.wait_for(operations.cancelled.wait(), WAIT)
            return await service.get(CALLER, job.job_id), operations.ran

    job, ran = asyncio.run(scenario())
    assert job.status == "cancelled" and job.result is None and len(ran) == 1


def test_after_a_restart_a_job_goes_on_from_its_last_finished_part(database: Database) -> None:
    async def scenario() -> tuple[JobRecord, list[str], int]:
        operations = Operations()
        operations.hold = {1}
        async with jobs(database, operations) as service:
            job, _ = await service.submit(admitted(body()), webhook_url=None, idempotency_key=None)
            await asyncio.wait_for(operations.started.wait(), WAIT)
        # Stopped mid-part (no grace): the job waits for the next start.
        stopped = JobStore(database).get(job.job_id)
        assert stopped is not None and stopped.status == "running" and stopped.progress_done == 1
        operations.hold = set()
        async with jobs(database, operations) as service:
            return await ended(service, job.job_id), operations.ran, stopped.runs

    job, ran, runs_before = asyncio.run(scenario())
    assert job.status == "completed" and job.runs == runs_before + 1 == 2
    # Part 0 ran once; part 1 was cut off, then run to the end after the restart.
    assert ran == [f"{job.job_id}:{n}" for n in range(3)]
    [result] = job.result["message"]["results"] if job.result else []
    assert len(result["response"]) == 3


def test_a_busy_spell_is_waited_out_and_a_bad_part_fails_the_job(database: Database) -> None:
    async def scenario() -> tuple[JobRecord, JobRecord]:
        operations = Operations()
        busy = ServiceError(ErrorCode.OVERLOADED, "Busy.", retry_after=0)
        operations.refuse = {0: busy}
        async with jobs(database, operations) as service:
            first, _ = await service.submit(
                admitted(body(1)), webhook_url=None, idempotency_key=None
            )
            waited = await ended(service, first.job_id)
            operations.refuse = {0: ServiceError(ErrorCode.PAYLOAD_SCHEMA_MISMATCH, "Bad part.")}
            second, _ = await service.submit(
                admitted(body(1)), webhook_url=None, idempotency_key=None
            )
            return waited, await ended(service, second.job_id)

    waited, failed = asyncio.run(scenario())
    assert waited.status == "completed"
    assert failed.status == "failed" and failed.error_code == "PAYLOAD_SCHEMA_MISMATCH"
    assert failed.error_message == "Bad part." and failed.reserved_characters == 0


def test_submissions_are_checked_capped_and_idempotent(database: Database) -> None:
    async def scenario() -> None:
        async with jobs(database, Operations(), worker=False) as service:
            klingon = body(1).model_copy(deep=True)
            data = klingon.model_dump(mode="json")
            data["request"]["settings"]["overrideOutputLanguage"] = "tlh"
            with pytest.raises(ServiceError) as refused:
                await service.submit(
                    admitted(validate(MessageBody, data)), webhook_url=None, idempotency_key=None
                )
            assert refused.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
            first, created = await service.submit(
                admitted(body(1)), webhook_url=None, idempotency_key="k"
            )
            again, created_again = await service.submit(
                admitted(body(1)), webhook_url=None, idempotency_key="k"
            )
            assert created and not created_again and again.job_id == first.job_id
            with pytest.raises(ServiceError) as reused:
                await service.submit(admitted(body(2)), webhook_url=None, idempotency_key="k")
            assert reused.value.code is ErrorCode.IDEMPOTENCY_KEY_REUSED
            for _ in range(4):  # five queued in all: the cap
                await service.submit(admitted(body(1)), webhook_url=None, idempotency_key=None)
            with pytest.raises(ServiceError) as capped:
                await service.submit(admitted(body(1)), webhook_url=None, idempotency_key=None)
            assert capped.value.code is ErrorCode.RATE_LIMITED and "5 jobs" in capped.value.message
            # A retry of a job made before the cap was reached still gets its job.
            assert (await service.submit(admitted(body(1)), webhook_url=None, idempotency_key="k"))[
                0
            ].job_id == first.job_id

    asyncio.run(scenario())


def test_an_expired_job_is_gone_and_swept(database: Database) -> None:
    now = [datetime(2026, 11, 27, 12, tzinfo=UTC)]
    store = JobStore(database, now=lambda: now[0])
    job, _ = store.create(NewJob("acme", "org-1", "translate", {}, None, 10, 1))
    assert [claimed.job_id for claimed in store.claim(job.batch_id)] == [job.job_id]
    ended_job = store.finish(job.job_id, "completed", retention=timedelta(hours=24), result={})
    assert ended_job is not None and ended_job.expires_at == now[0] + timedelta(hours=24)
    assert store.finish(job.job_id, "cancelled", retention=timedelta(hours=24)) is None
    now[0] += timedelta(hours=24, seconds=1)
    assert store.get(job.job_id) is None and store.get(job.job_id, expired=True) is not None
    assert store.sweep() == 1 and store.get(job.job_id, expired=True) is None


def test_a_webhook_is_told_once_even_if_its_worker_died_after_the_end(database: Database) -> None:
    """The first delivery follows the end in the job's own task; a job that ended but whose
    webhook was never attempted (its worker killed in between) is told when the task runs
    again, and one already attempted is left to its retries."""

    class Told:
        def __init__(self) -> None:
            self.jobs: list[str] = []

        async def deliver(self, jobs: Sequence[JobRecord]) -> None:
            self.jobs.extend(job.job_id for job in jobs)

    async def scenario() -> tuple[list[str], str, str]:
        operations = Operations()
        async with jobs(database, operations, worker=False) as service:
            told = Told()
            service.notifier = told  # type: ignore[assignment]
            service.limits = replace(service.limits, allowed_hosts=("127.0.0.1:9",))
            ran, _ = await service.submit(
                admitted(body(1)), webhook_url="http://127.0.0.1:9/a", idempotency_key=None
            )
            await service.run(ran.job_id)  # ends it, and tells it
            killed, _ = await service.submit(
                admitted(body(1)), webhook_url="http://127.0.0.1:9/b", idempotency_key=None
            )
            # Its worker ended it, then died before the delivery: the task runs again.
            service.store.finish(killed.job_id, "completed", retention=timedelta(hours=1))
            await service.run(killed.job_id)
            attempt = {"status": 500, "error": None}
            service.store.record_attempts([AttemptRecord(ran.job_id, [attempt], "pending", None)])
            await service.run(ran.job_id)  # attempted already: its retry is queued
            return told.jobs, ran.job_id, killed.job_id

    told, ran, killed = asyncio.run(scenario())
    assert told == [ran, killed]
