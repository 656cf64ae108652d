"""The job queue: threadwise's batches of jobs deferred to procrastinate and run by a worker,
and the deliveries of the jobs' webhooks, each at its time."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Literal

from procrastinate import App, BaseConnector, PsycopgConnector
from procrastinate.app import WorkerOptions
from procrastinate.exceptions import AlreadyEnqueued, ConnectorException
from procrastinate.jobs import Job, Status
from procrastinate.schema import SchemaManager
from procrastinate.testing import InMemoryConnector
from sqlalchemy.engine import make_url

logger = logging.getLogger(__name__)

Handler = Callable[[str], Awaitable[None]]

QUEUE = "threadwise"
# Two lanes, each with its own queue and worker slots: work for the language model (summaries,
# quality-tier translations), which waits for it in turns, cannot take every slot from the
# fast work (fast-tier translations, webhook deliveries), which would then wait behind it.
Lane = Literal["fast", "model"]
QUEUES: dict[Lane, str] = {"fast": QUEUE, "model": f"{QUEUE}.model"}
TASK = "threadwise.run_batch"
NOTICE_TASK = "threadwise.deliver_webhook"
# Any constant of our own: replicas starting at once take it in turn to create the schema.
SCHEMA_LOCK = 0x7468_7265_6164  # "thread"
# The worker stops on its own when a side task fails (say the database went away for a
# moment); it is started again after this pause rather than leaving the server without one.
RESTART_SECONDS = 5.0
# How often an idle worker looks for tasks no notification told it of.
FETCH_POLL_SECONDS = 1.0


class JobQueue:
    """Batches of jobs (a job alone is a batch of one, named by its id) over a procrastinate
    app: defer, cancel, and one worker to run them.

    A batch whose worker stops beating for ``stalled_seconds`` (the process was killed) is
    queued again, ``stalled_retries`` times at most, then dropped as failed.
    """

    def __init__(
        self,
        connector: BaseConnector,
        *,
        stalled_seconds: float = 30.0,
        stalled_retries: int = 1,
    ) -> None:
        if stalled_seconds <= 0:
            raise ValueError(f"stalled_seconds must be positive, got {stalled_seconds}")
        self.app = App(connector=connector)
        self.stalled_seconds = stalled_seconds
        self.stalled_retries = stalled_retries
        self._handler: Handler | None = None
        self._notifier: Handler | None = None
        self._given_up: Handler | None = None
        self._worker: asyncio.Task[None] | None = None
        # One task for every batch of jobs (its only argument the batch id), and one for
        # every webhook delivery (the job id).
        self._task = self.app.task(name=TASK, queue=QUEUE)(self._run)
        self._notice_task = self.app.task(name=NOTICE_TASK, queue=QUEUE)(self._notify)

    async def open(self) -> None:
        await self.app.open_async()
        if isinstance(self.app.connector, PsycopgConnector):
            await _create_schema(self.app.connector)

    async def close(self) -> None:
        await self.stop_worker()
        await self.app.close_async()

    async def defer(self, batch_id: str, *, priority: int = 0, lane: Lane = "fast") -> None:
        """Queue ``batch_id`` to run once in ``lane``; nothing happens if it is already queued."""
        # The queueing lock refuses a second queued copy; the lock keeps two runs apart.
        with suppress(AlreadyEnqueued):
            await self._task.configure(
                queueing_lock=batch_id, lock=batch_id, priority=priority, queue=QUEUES[lane]
            ).defer_async(batch_id=batch_id)

    async def defer_notice(self, job_id: str, *, delay: float = 0.0) -> None:
        """Deliver ``job_id``'s webhook in ``delay`` seconds; once, if already waiting."""
        lock = f"notice:{job_id}"
        with suppress(AlreadyEnqueued):
            await self._notice_task.configure(
                queueing_lock=lock,
                lock=lock,
                schedule_in={"milliseconds": max(0, round(delay * 1000))},
            ).defer_async(job_id=job_id)

    async def cancel(self, batch_id: str) -> bool:
        """Take ``batch_id`` out of the queue, or stop its run (the handler is cancelled).

        False when the batch is neither queued nor running.
        """
        manager = self.app.job_manager
        for job in await manager.list_jobs_async(queueing_lock=batch_id):
            if job.id is not None and job.status in (Status.TODO.value, Status.DOING.value):
                return await manager.cancel_job_by_id_async(job.id, abort=True)
        return False

    async def depth(self) -> int:
        """How many tasks wait to run: batches, and webhook deliveries that are due."""
        queues = await self.app.job_manager.list_queues_async()
        return sum(int(queue["todo"]) for queue in queues if queue["name"] in QUEUES.values())

    async def fast_batches(self) -> int:
        """Batches queued or running in the fast lane, on every replica (0 if the queue
        cannot be read now: a model's work is not held up by that)."""
        try:
            queues = await self.app.job_manager.list_queues_async(queue=QUEUES["fast"], task=TASK)
        except Exception:
            logger.exception("reading the fast lane's depth failed")
            return 0
        return sum(int(queue["todo"]) + int(queue["doing"]) for queue in queues)

    def start_worker(
        self,
        handler: Handler,
        *,
        notifier: Handler | None = None,
        given_up: Handler | None = None,
        concurrency: int = 1,
        model_concurrency: int = 1,
        grace_seconds: float | None = None,
    ) -> None:
        """Run batches with ``handler(batch_id)`` and deliver webhooks with
        ``notifier(job_id)``, in this event loop: ``concurrency`` at a time in the fast lane,
        ``model_concurrency`` in the model's; ``given_up(batch_id)`` hears of a batch dropped
        after its workers stopped too often. When the worker stops, running batches have
        ``grace_seconds`` to end (None: no limit), then they are cancelled."""
        if self._worker is not None:
            raise RuntimeError("the job worker is already running: stop_worker() first")
        self._handler = handler
        self._notifier = notifier
        self._given_up = given_up
        self._worker = asyncio.create_task(
            self._lanes(concurrency, model_concurrency, grace_seconds), name="threadwise jobs"
        )

    async def stop_worker(self) -> None:
        """Stop taking jobs and wait for the running ones to finish, or (after the worker's
        ``grace_seconds``) to be cancelled."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        # procrastinate turns the cancellation into a graceful stop: no new job is taken and
        # the running ones are awaited, then cancelled past the grace. A process killed
        # meanwhile is the stalled case, and another worker takes its jobs up.
        worker.cancel()
        with suppress(asyncio.CancelledError):
            await worker

    async def recover_stalled(self, queue: str | None = None) -> int:
        """Queue again the batches (of ``queue``, default every lane's) whose worker stopped
        beating; how many were queued again."""
        if queue is None:
            return sum([await self.recover_stalled(name) for name in QUEUES.values()])
        manager = self.app.job_manager
        requeued = 0
        stalled = await manager.get_stalled_jobs(
            queue=queue, seconds_since_heartbeat=self.stalled_seconds
        )
        for job in stalled:
            try:
                if job.attempts < self.stalled_retries:
                    await manager.retry_job(job)
                    requeued += 1
                    logger.warning("batch %s: its worker stopped; queued again", _batch_id(job))
                else:
                    await manager.finish_job(job, status=Status.FAILED, delete_job=True)
                    logger.error("batch %s: its worker stopped again; given up", _batch_id(job))
                    if self._given_up is not None:
                        await self._given_up(_batch_id(job))
            except ConnectorException:
                # Another replica's check took it first: the job is no longer "doing".
                continue
        return requeued

    async def _run(self, batch_id: str) -> None:
        assert self._handler is not None, "a batch ran with no worker started"
        await self._handler(batch_id)

    async def _notify(self, job_id: str) -> None:
        if self._notifier is None:
            logger.error("job %s: a webhook was due, but this worker delivers none", job_id)
            return
        await self._notifier(job_id)

    async def _lanes(
        self, concurrency: int, model_concurrency: int, grace_seconds: float | None
    ) -> None:
        """Run the lanes' workers side by side. Cancelled, gather cancels each once (a second
        cancellation would cut procrastinate's graceful stop short) and, collecting what each
        raises rather than ending at the first, waits for them all."""
        await asyncio.gather(
            self._work(QUEUES["fast"], concurrency, grace_seconds),
            self._work(QUEUES["model"], model_concurrency, grace_seconds),
            return_exceptions=True,
        )

    async def _work(self, queue: str, concurrency: int, grace_seconds: float | None) -> None:
        while True:
            recovery = asyncio.create_task(self._recover_forever(queue), name="stalled jobs")
            options: WorkerOptions = {
                "queues": [queue],
                "concurrency": concurrency,
                "wait": True,
                "install_signal_handlers": False,
                # threadwise's own job records keep the outcome; procrastinate's rows would
                # only pile up (in memory, with the in-process connector).
                "delete_jobs": "always",
                # Three beats per stall timeout: a live worker is never taken for dead.
                "update_heartbeat_interval": self.stalled_seconds / 3,
                "stalled_worker_timeout": self.stalled_seconds,
                # A requeued stalled batch sends no notification, nor does a batch's task
                # queued while another of the same batch held its lock (for jobs that joined
                # it late) when that one ends: polling finds them.
                "fetch_job_polling_interval": min(FETCH_POLL_SECONDS, self.stalled_seconds / 3),
                "abort_job_polling_interval": min(5.0, self.stalled_seconds / 3),
            }
            if grace_seconds is not None:  # else procrastinate's: wait for them
                options["shutdown_graceful_timeout"] = grace_seconds
            try:
                await self.app.run_worker_async(**options)
                logger.warning("the job worker stopped on its own; starting it again")
            except Exception:
                logger.exception("the job worker failed; starting it again")
            finally:
                recovery.cancel()
                with suppress(asyncio.CancelledError):
                    await recovery
            await asyncio.sleep(RESTART_SECONDS)

    async def _recover_forever(self, queue: str) -> None:
        while True:
            await asyncio.sleep(self.stalled_seconds / 3)
            try:
                await self.recover_stalled(queue)
            except Exception:
                # The database away for a moment (a pool timeout, a closed connection): the
                # next round tries again.
                logger.exception("checking for stalled jobs failed; trying again")


def shared(database_url: str) -> bool:
    """Whether the queue for this database is one other processes take from too (PostgreSQL's),
    rather than this process's own (SQLite's)."""
    return make_url(database_url).get_backend_name() in ("postgresql", "postgres")


def queue_for(
    database_url: str, *, stalled_seconds: float = 30.0, stalled_retries: int = 1
) -> JobQueue:
    """The queue for threadwise's database: in PostgreSQL, else in this process."""
    url = make_url(database_url)
    connector: BaseConnector
    if shared(database_url):
        # libpq wants a plain postgresql:// URL, not SQLAlchemy's postgresql+psycopg://.
        conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        # The worker's listener holds one connection; jobs, beats and polls share the rest.
        connector = PsycopgConnector(conninfo=conninfo, min_size=1, max_size=4)
    else:
        # SQLite has no queue to share: the in-process one, refilled from the job records
        # at start-up.
        connector = InMemoryConnector()
    return JobQueue(connector, stalled_seconds=stalled_seconds, stalled_retries=stalled_retries)


async def _create_schema(connector: PsycopgConnector) -> None:
    """Create procrastinate's tables unless there; one replica at a time."""
    async with connector.pool.connection() as connection, connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        cursor = await connection.execute("SELECT to_regclass('procrastinate_jobs')")
        row = await cursor.fetchone()
        if row is None or row[0] is None:
            await connection.execute(SchemaManager.get_schema())


def _batch_id(job: Job) -> str:
    return str(job.task_kwargs.get("batch_id"))
