"""Asynchronous jobs: a request admitted as any other (``serving/admission.py``), stored and
queued, then run by a worker part by part through the same ``Operations.run`` as a request,
behind the requests (``work_queue.in_background``), and told to its webhook when it ends.

Jobs submitted at the same moment are stored together (one transaction, ``GroupCommit``), and
the fast ones join the replica's open batch (``OpenBatch``): one task of the queue claims a
batch's jobs in one statement, runs them side by side, ends them in one statement and
delivers their webhooks together. Under a burst of submissions, the queue's and the
database's work per job is so shared among many.

A part's answer is kept on the job before the next starts, so a job taken up again after its
worker died goes on from where it was. A part for the language model runs with an idempotency
key of its own, so a part done but not yet kept is not done (or charged) twice where the keys
are shared (Redis). A fast part runs without one (the key's two round trips cost as much as
its work): were its worker killed between its answer and the statement that keeps it, it is
done again, a few milliseconds, and its characters may be counted twice. The monthly quota
holds the job's characters from submission until each part is counted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext, suppress
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, TypeVar

import anyio.to_thread

from threadwise.auth.gate import Principal
from threadwise.errors import ServiceError
from threadwise.jobs.batches import OpenBatch
from threadwise.jobs.fast_first import FastFirst
from threadwise.jobs.group_commit import GroupCommit
from threadwise.jobs.notify import WebhookNotifier
from threadwise.jobs.queue import JobQueue, Lane
from threadwise.jobs.store import (
    End,
    IdempotencyConflict,
    IdempotencyKey,
    JobRecord,
    JobStore,
    NewJob,
    Page,
    Status,
)
from threadwise.metrics import Metrics
from threadwise.payload import charged_characters
from threadwise.protocol import ErrorCode, MessageBody, results_envelope
from threadwise.serving.admission import Admitted
from threadwise.serving.job_parts import decoded, encoded, joined, part_count, parts, storable
from threadwise.serving.job_watch import JobWatch
from threadwise.serving.operations import (
    Operation,
    Operations,
    Results,
    canonical_body,
    digest,
)
from threadwise.serving.records import RequestRecord
from threadwise.ttl_cache import TtlCache
from threadwise.webhooks.targets import TargetError, resolve_target
from threadwise.work_queue import in_background

log = logging.getLogger(__name__)
T = TypeVar("T")

# A part refused for a busy moment (OVERLOADED, a timeout) is tried again after these pauses,
# the last one repeated, until GIVE_UP_SECONDS have passed: a job waits out the requests.
RETRY_PAUSES = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
GIVE_UP_SECONDS = 1800.0
SWEEP_SECONDS = 300.0
# How long an organization's count of jobs queued or running is taken as it was read.
ACTIVE_COUNT_SECONDS = 1.0
# The most jobs stored in one transaction.
MAX_GROUP = 64

Stored = tuple[JobRecord, bool] | Exception
Submitted = tuple[JobRecord, bool] | ServiceError
# How long a webhook URL found safe at a submission is taken as safe by the next ones.
CHECKED_URL_SECONDS = 60.0


@dataclass(frozen=True)
class Submission:
    """One job of a batch submission: its request let in, its webhook and its key."""

    admitted: Admitted
    webhook_url: str | None = None
    idempotency_key: str | None = None


@dataclass(frozen=True)
class JobLimits:
    retention: timedelta = timedelta(hours=24)
    max_queued: int = 10_000
    concurrency: int = 4  # fast-tier jobs and webhook deliveries at a time
    model_concurrency: int = 1  # jobs for the language model at a time
    allowed_hosts: tuple[str, ...] = ()
    # At shutdown, how long running jobs may take to end their part before they are put
    # back in the queue (to go on from their last part on any replica).
    grace_seconds: float = 30.0
    # Fast jobs join a batch until it holds this many, or has been open this long.
    batch_jobs: int = 64
    batch_seconds: float = 1.0
    # A model's part waits at most this long for the fast jobs running beside it to end.
    model_waits_for_fast_seconds: float = 30.0


class Jobs:
    """Submit, read, list and cancel jobs for callers; run them on this replica's worker."""

    def __init__(
        self,
        *,
        store: JobStore,
        queue: JobQueue,
        operations: Operations,
        notifier: WebhookNotifier,
        limits: JobLimits = JobLimits(),
        metrics: Metrics | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        runs_worker: bool = True,
    ) -> None:
        self.store = store
        self.queue = queue
        self.operations = operations
        self.notifier = notifier
        self.limits = limits
        self.metrics = metrics
        self._sleep = sleep
        # False where another process runs the jobs (`threadwise worker`): this one submits,
        # reads and cancels them only.
        self.runs_worker = runs_worker
        # Who tells a transport that a job ended (the WebSocket pushes it), from any replica.
        self.watcher = JobWatch(store)
        self._active: TtlCache[tuple[str, str], int] = TtlCache(ACTIVE_COUNT_SECONDS)
        self._storing: GroupCommit[NewJob, Stored] = GroupCommit(
            self._store_and_queue, max_items=MAX_GROUP
        )
        # Idempotency keys looked up together the same way, one query for a burst.
        self._finding: GroupCommit[IdempotencyKey, JobRecord | None] = GroupCommit(
            lambda keys: _thread(self.store.find_many, keys), max_items=MAX_GROUP
        )
        self._checked_urls: TtlCache[str, bool] = TtlCache(CHECKED_URL_SECONDS)
        self._fast_first = FastFirst(max_wait_seconds=limits.model_waits_for_fast_seconds)
        self._open_batch = OpenBatch(max_jobs=limits.batch_jobs, max_seconds=limits.batch_seconds)
        self._sweeper: asyncio.Task[None] | None = None
        self._owner: asyncio.AbstractEventLoop | None = None  # the loop the worker runs in

    # --- what transports call --------------------------------------------------------------

    async def submit(
        self, admitted: Admitted, *, webhook_url: str | None, idempotency_key: str | None
    ) -> tuple[JobRecord, bool]:
        """Store and queue ``admitted`` as a job; with an ``idempotency_key`` used before for
        the same request, that job (and False)."""
        body, operation = admitted.body, admitted.operation
        tenant = admitted.caller.claims.tenant
        organization = body.request.context.organizationId
        fingerprint = digest(
            {"operation": operation, "body": canonical_body(body), "webhook": webhook_url}
        )
        if idempotency_key is not None:
            earlier = await self._finding.add((tenant, organization, idempotency_key))
            if earlier is not None:
                return _same_request(earlier, fingerprint), False
        policy = await self.operations.check(operation, body, tenant=tenant)
        url = webhook_url or policy.webhook_url
        if webhook_url is not None:
            await self._check_webhook(webhook_url)
        queued = await self._queued(tenant, organization)
        if queued >= self.limits.max_queued:
            raise ServiceError(
                ErrorCode.RATE_LIMITED,
                f"The organization {organization[:256]!r} has {queued} jobs queued or running, "
                f"the most it may have; wait for some to end (GET /jobs), then submit again.",
                retry_after=60,
                reason="jobs_queued",
            )
        await self.operations.check_quota(
            tenant, organization, admitted.characters, policy.monthly_characters
        )
        job = NewJob(
            tenant=tenant,
            organization_id=organization,
            operation=operation,
            body=storable(body),
            request_id=body.request.requestId,
            characters=admitted.characters,
            parts=part_count(body, operation),
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            webhook_url=url,
        )
        stored = await self._storing.add(job)
        if isinstance(stored, IdempotencyConflict):
            raise _reused() from stored
        if isinstance(stored, Exception):
            raise stored
        record, created = stored
        if created:
            self._active.replace((tenant, organization), queued + 1)
        else:
            _same_request(record, fingerprint)
        return record, created

    async def submit_many(self, submissions: Sequence[Submission]) -> list[Submitted]:
        """Each of ``submissions`` as ``submit`` answers it (or the error that refused it),
        in order; submitted side by side, so they are looked up and stored together."""

        async def one(submission: Submission) -> Submitted:
            try:
                return await self.submit(
                    submission.admitted,
                    webhook_url=submission.webhook_url,
                    idempotency_key=submission.idempotency_key,
                )
            except ServiceError as exc:
                return exc
            except Exception:
                log.exception("a job of a batch could not be submitted")
                return ServiceError(
                    ErrorCode.PROCESSING_FAILED,
                    "The job could not be stored; submit it again (with its idempotencyKey, "
                    "a job that was stored after all is answered, not made twice).",
                )

        return list(await asyncio.gather(*(one(s) for s in submissions)))

    async def _store_and_queue(self, jobs: Sequence[NewJob]) -> list[Stored]:
        """Store the jobs submitted together, and queue them: the fast ones in the open batch
        (queued again: a no-op while its task waits, else the task for those who joined after
        its claim), each of the others alone (a language model's job is long, and cancelled
        at once)."""
        fast = [lane_for(job.operation, job.body) == "fast" for job in jobs]
        if any(fast):
            batch_id = self._open_batch.join(sum(fast))
            jobs = [
                replace(job, batch_id=batch_id) if is_fast else job
                for job, is_fast in zip(jobs, fast, strict=True)
            ]
        stored = await _thread(self.store.create_many, jobs)
        batches: dict[str, Lane] = {}
        for answer, is_fast in zip(stored, fast, strict=True):
            if not isinstance(answer, Exception) and answer[1]:
                batches.setdefault(answer[0].batch_id, "fast" if is_fast else "model")
        # The fast batches first: a model's part, when it starts, sees them queued and waits.
        for batch_id, lane in sorted(batches.items(), key=lambda item: item[1] != "fast"):
            await self.queue.defer(batch_id, lane=lane)
        return stored

    async def _queued(self, tenant: str, organization: str) -> int:
        """The organization's jobs queued or running, as counted within ACTIVE_COUNT_SECONDS
        (and those submitted here since): a burst of submissions does not count them all
        again for each (the cap may be passed by what other replicas took meanwhile)."""
        return await self._active.read_through(
            (tenant, organization),
            lambda: self.store.active_count(tenant, organization)[0],
        )

    async def get(self, caller: Principal, job_id: str) -> JobRecord:
        """The caller's job, or ``NOT_FOUND`` (another organization's is not there for it)."""
        job = await _thread(self.store.get, job_id)
        if job is None or not _visible(caller, job):
            raise ServiceError(
                ErrorCode.NOT_FOUND,
                f"There is no job {job_id[:64]!r} for this client: it never was, or it belongs "
                "to an organization this client may not act for, or its results expired.",
            )
        return job

    async def page(
        self,
        caller: Principal,
        organization: str | None,
        status: Status | None,
        limit: int,
        cursor: str | None,
    ) -> Page:
        organizations = caller.claims.organizations
        if organization is not None:
            if organization not in organizations:
                raise ServiceError(
                    ErrorCode.FORBIDDEN_ORGANIZATION,
                    f"organizationId {organization[:256]!r} is not an organization this client "
                    "may act for; leave it out to list the jobs of every one it may.",
                )
            organizations = frozenset({organization})
        try:
            return await _thread(
                self.store.page,
                caller.claims.tenant,
                organizations,
                status=status,
                limit=limit,
                cursor=cursor,
            )
        except ValueError as exc:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                f"{exc} Send the nextCursor of the last page as it came, or none.",
            ) from exc

    async def cancel(self, caller: Principal, job_id: str) -> JobRecord:
        """Cancel the caller's job if it has not ended; the job as it is then."""
        job = await self.get(caller, job_id)
        if job.ended:
            return job
        ended = await self._end(
            job, "cancelled", error=("REQUEST_CANCELLED", "The job was cancelled by its client.")
        )
        if job.batch_id == job.job_id:
            # Out of the queue, or its run stopped (at once here; on another replica within
            # its abort polling, or at its next part). A job in a batch with others is passed
            # over by its batch's run, or its answer dropped when it comes.
            await self.queue.cancel(job.batch_id)
        if ended is not None and ended.webhook_status == "pending":
            await self.queue.defer_notice(job_id)
        return ended or await self.get(caller, job_id)

    async def depth(self) -> tuple[int, float]:
        """Jobs queued on every replica, and the oldest one's wait in seconds."""
        return await _thread(self.store.depth)

    # --- this replica's worker -------------------------------------------------------------

    async def start(self) -> None:
        """Open the queue; where this process runs the jobs, queue again what a restart left
        (jobs not ended, webhooks due), and start the worker and the sweep of expired
        results."""
        loop = asyncio.get_running_loop()
        if self._owner is not None and self._owner.is_running() and self._owner is not loop:
            # Another app of these services (a test serves one twice) runs the worker.
            return
        self._owner = loop
        await self.queue.open()
        if not self.runs_worker:
            return
        batches: dict[str, Lane] = {}
        for job in await _thread(self.store.active):
            batches.setdefault(job.batch_id, lane_of(job))
        for batch_id, lane in batches.items():
            await self.queue.defer(batch_id, lane=lane)
        now = self.store.now()
        for job_id, due in await _thread(self.store.due_webhooks):
            await self.queue.defer_notice(job_id, delay=(due - now).total_seconds())
        self.queue.start_worker(
            self.run,
            notifier=self.notifier,
            given_up=self._given_up,
            concurrency=self.limits.concurrency,
            model_concurrency=self.limits.model_concurrency,
            grace_seconds=self.limits.grace_seconds,
        )
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="expired jobs")

    async def stop(self) -> None:
        """Stop taking jobs, let the running ones finish within the limits' grace (then they
        go back to the queue, to go on from their last part), and close the queue."""
        if self._owner is not asyncio.get_running_loop():
            return
        self._owner = None
        if self._sweeper is not None:
            self._sweeper.cancel()
            with suppress(asyncio.CancelledError):
                await self._sweeper
        await self.queue.close()

    async def run(self, batch_id: str) -> None:
        """Do the batch's jobs, each from where it is, unless they have ended (the queue's
        handler); then deliver their webhooks."""
        jobs = await _thread(self.store.claim, batch_id)
        if not jobs:
            await self._told_once(batch_id)
            return
        fast = lane_of(jobs[0]) == "fast"
        with self._fast_first.fast() if fast else nullcontext():
            await self._run_claimed(batch_id, jobs)

    async def _run_claimed(self, batch_id: str, jobs: list[JobRecord]) -> None:
        """Run the claimed jobs and deliver their webhooks, then those that joined the batch
        since, until none is left."""
        while jobs:
            try:
                ends = await self._work_all(jobs)
            except asyncio.CancelledError:
                if not await self._left(batch_id):
                    return  # cancelled by its client: nothing more to do
                # The worker is stopping: the batch goes back to the queue, for any replica.
                await self.queue.defer(batch_id, lane=lane_of(jobs[0]))
                raise
            # The first deliveries here and now (a retry goes through the queue): were this
            # worker killed before them, the batch's task runs again and comes to _told_once.
            await self.notifier.deliver(await self._end_all(ends))
            # Jobs that joined the batch since its claim, here and now rather than in the
            # task queued for them (which waits for this one's lock, then the queue's poll).
            jobs = await _thread(self.store.claim, batch_id)

    async def _left(self, batch_id: str) -> list[JobRecord]:
        """The batch's jobs not ended."""
        return [job for job in await _thread(self.store.batch, batch_id) if not job.ended]

    async def _told_once(self, batch_id: str) -> None:
        """The batch's jobs ended by its run whose webhook was never attempted (its worker
        died between the end and the delivery, and the batch's task ran again): delivered
        now. A cancelled job's webhook is the queue's to deliver (``cancel`` queued it)."""
        jobs = await _thread(self.store.batch, batch_id)
        await self.notifier.deliver(
            [
                job
                for job in jobs
                if job.status != "cancelled"
                and job.webhook_status == "pending"
                and not job.webhook_attempts
            ]
        )

    async def _given_up(self, batch_id: str) -> None:
        """A batch whose workers were killed twice in it fails (a third run could kill a
        third replica: a request that crashes its server, say)."""
        message = (
            "The job's worker stopped twice while running it (its replica was killed or "
            "crashed); it was given up. Submit it again, in smaller parts if it is large."
        )
        error = ("PROCESSING_FAILED", message)
        ends = [End(job.job_id, "failed", error=error) for job in await self._left(batch_id)]
        for job in await self._end_all(ends):
            if job.webhook_status == "pending":
                await self.queue.defer_notice(job.job_id)

    async def _work_all(self, jobs: Sequence[JobRecord]) -> list[End]:
        """The jobs' ends, ``limits.concurrency`` of them run at a time."""
        slots = asyncio.Semaphore(max(1, self.limits.concurrency))

        async def one(job: JobRecord) -> End | None:
            async with slots:
                return await self._work(job)

        ends = await asyncio.gather(*(one(job) for job in jobs))
        return [end for end in ends if end is not None]

    async def _work(self, job: JobRecord) -> End | None:
        """The job's end, once its parts are done; None if it was cancelled meanwhile."""
        operation: Operation = "summarize" if job.operation == "summarize" else "translate"
        body = MessageBody.model_validate(job.body)
        requests = parts(body, operation)
        answers = [decoded(stored) for stored in job.partial]
        try:
            for number in range(len(answers), len(requests)):
                part = requests[number]
                answers.append(await self._part(job, operation, part, number))
                if len(answers) == len(requests):
                    break  # the last: its answer goes in with the result
                kept = [encoded(answer) for answer in answers]
                counted = charged_characters(part, operation)
                if not await _thread(self.store.record_part, job.job_id, kept, counted):
                    return None  # cancelled meanwhile
            envelope = results_envelope(operation, joined(answers), body.request).to_wire()
            return End(job.job_id, "completed", result=envelope)
        except ServiceError as exc:
            log.warning("job %s failed: %s %s", job.job_id, exc.code.value, exc.message)
            return End(job.job_id, "failed", error=(exc.code.value, exc.message))
        except Exception:
            log.exception("job %s failed", job.job_id)
            message = "The job failed on the server; submit it again."
            return End(job.job_id, "failed", error=("PROCESSING_FAILED", message))

    async def _part(
        self, job: JobRecord, operation: Operation, part: MessageBody, number: int
    ) -> Results:
        """One part, as a request of the job's organization, tried again through busy spells."""
        started = time.monotonic()
        # A model's part (seconds to minutes) is not done twice; a fast one is milliseconds.
        model = lane_of(job) == "model"
        key = f"{job.job_id}:{number}" if model else None
        if model:
            waiting = time.monotonic()
            await self._fast_first.model_turn(self.queue.fast_batches)
            if (waited := time.monotonic() - waiting) >= 1.0:
                log.info("job %s: part %d waited %.1f s for fast jobs", job.job_id, number, waited)
        pauses = iter(RETRY_PAUSES)
        pause = RETRY_PAUSES[0]
        while True:
            record = RequestRecord.start("job", correlation_id=f"{job.job_id}:{number}")
            try:
                with in_background():
                    return await self.operations.run(
                        operation,
                        part,
                        tenant=job.tenant,
                        record=record,
                        idempotency_key=key,
                        charged=charged_characters(part, operation),
                        quota_held=True,
                    )
            except ServiceError as exc:
                waited = time.monotonic() - started
                if not exc.code.retryable or waited > GIVE_UP_SECONDS:
                    raise
                pause = next(pauses, pause)
                log.info(
                    "job %s: part %d refused (%s), tried again in %g s",
                    job.job_id,
                    number,
                    exc.code.value,
                    pause,
                )
                await self._sleep(max(pause, exc.retry_after or 0))
            finally:
                record.finish(self.metrics)

    async def _end(
        self,
        job: JobRecord,
        status: Status,
        *,
        result: dict[str, Any] | None = None,
        error: tuple[str, str] | None = None,
    ) -> JobRecord | None:
        ended = await self._end_all([End(job.job_id, status, result, error)])
        return ended[0] if ended else None

    async def _end_all(self, ends: Sequence[End]) -> list[JobRecord]:
        """End the jobs not ended yet, in one transaction; those so ended."""
        if not ends:
            return []
        ended = await _thread(lambda: self.store.finish_many(ends, retention=self.limits.retention))
        if self.metrics is not None:
            for job in ended:
                self.metrics.jobs_ended.labels(job.operation, job.status).inc()
        return ended

    async def _check_webhook(self, url: str) -> None:
        """Refuse a webhook URL that would not be called. A URL found fine is not resolved
        again for CHECKED_URL_SECONDS: each delivery checks its target anew anyway."""
        if self._checked_urls.get(url):
            return
        try:
            await resolve_target(url, self.limits.allowed_hosts)
        except TargetError as exc:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH, f"webhook.url: {exc}", reason="webhook_url"
            ) from exc
        self._checked_urls.put(url, True)

    async def _sweep_forever(self) -> None:
        while True:
            try:
                removed = await _thread(self.store.sweep)
                if removed:
                    log.info("%d expired jobs removed", removed)
            except Exception:
                log.exception("removing expired jobs failed; trying again")
            await asyncio.sleep(SWEEP_SECONDS)


def lane_of(job: JobRecord) -> Lane:
    return lane_for(job.operation, job.body)


def lane_for(operation: str, body: dict[str, Any]) -> Lane:
    """Which of the queue's lanes a job waits in: the model's for a summary or a translation
    by the model (the quality tier, the default), else the fast one."""
    if operation == "summarize":
        return "model"
    settings = body.get("request", {}).get("settings") or {}
    return "fast" if settings.get("translationMode") == "fast" else "model"


def _visible(caller: Principal, job: JobRecord) -> bool:
    claims = caller.claims
    return job.tenant == claims.tenant and job.organization_id in claims.organizations


def _same_request(job: JobRecord, fingerprint: str) -> JobRecord:
    if job.fingerprint != fingerprint:
        raise _reused()
    return job


def _reused() -> ServiceError:
    return ServiceError(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
        "This Idempotency-Key was used for another job request; use a new key for a new request.",
    )


async def _thread(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await anyio.to_thread.run_sync(lambda: work(*args, **kwargs))
