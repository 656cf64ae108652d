from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from procrastinate.testing import InMemoryConnector

from scripts.cluster import POSTGRES_VARIABLE, fresh_database
from tests.conftest import service_url
from threadwise.jobs import JobQueue, queue_for

ROOT = Path(__file__).resolve().parents[2]
# Generous: a busy 2-core machine is slow, and these wait for events, not for the time.
WAIT_SECONDS = 60.0
IN_PROCESS = "sqlite:///:memory:"


class Recorder:
    """A handler that notes each job id it runs, and wakes a waiter at ``expected`` runs."""

    def __init__(self, expected: int) -> None:
        self.ran: list[str] = []
        self.expected = expected
        self.enough = asyncio.Event()

    async def __call__(self, job_id: str) -> None:
        self.ran.append(job_id)
        if len(self.ran) >= self.expected:
            self.enough.set()

    async def wait(self) -> None:
        await asyncio.wait_for(self.enough.wait(), WAIT_SECONDS)


@asynccontextmanager
async def opened(queue: JobQueue) -> AsyncIterator[JobQueue]:
    await queue.open()
    try:
        yield queue
    finally:
        await queue.close()


@pytest.fixture(params=["in-process", "postgresql"])
def queue_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The database a queue is for: none (the SQLite default's in-process queue), or a fresh
    PostgreSQL database of the test's own."""
    if request.param == "in-process":
        yield IN_PROCESS
        return
    with fresh_database(service_url(POSTGRES_VARIABLE)) as url:
        yield url


# --- either queue ---------------------------------------------------------------------------


def test_a_deferred_job_runs_once_with_its_id(queue_url: str) -> None:
    async def scenario() -> list[str]:
        recorder = Recorder(expected=2)
        async with opened(queue_for(queue_url)) as queue:
            queue.start_worker(recorder)
            await queue.defer("job-1")
            await queue.defer("job-2")
            await recorder.wait()
        return recorder.ran

    assert asyncio.run(scenario()) == ["job-1", "job-2"]


def test_a_job_deferred_twice_runs_once(queue_url: str) -> None:
    async def scenario() -> tuple[int, list[str]]:
        recorder = Recorder(expected=2)
        async with opened(queue_for(queue_url)) as queue:
            await queue.defer("twice")
            await queue.defer("twice")
            await queue.defer("after")
            depth = await queue.depth()
            await queue.defer("a summary", lane="model")
            await queue.defer_notice("job-9", delay=3600)  # a webhook's retry: not a batch
            assert await queue.fast_batches() == 2
            await queue.cancel("a summary")
            # One worker, jobs in their order: "after" done means "twice" was done before.
            queue.start_worker(recorder)
            await recorder.wait()
        return depth, recorder.ran

    assert asyncio.run(scenario()) == (2, ["twice", "after"])


def test_a_job_cancelled_while_queued_never_runs(queue_url: str) -> None:
    async def scenario() -> tuple[bool, bool, list[str]]:
        recorder = Recorder(expected=1)
        async with opened(queue_for(queue_url)) as queue:
            await queue.defer("cancelled")
            await queue.defer("kept")
            cancelled = await queue.cancel("cancelled")
            queue.start_worker(recorder)
            await recorder.wait()
            again = await queue.cancel("cancelled")
        return cancelled, again, recorder.ran

    assert asyncio.run(scenario()) == (True, False, ["kept"])


def test_a_job_cancelled_while_running_has_its_handler_cancelled(queue_url: str) -> None:
    async def scenario() -> bool:
        started, stopped = asyncio.Event(), asyncio.Event()

        async def hang(job_id: str) -> None:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                stopped.set()
                raise

        async with opened(queue_for(queue_url)) as queue:
            queue.start_worker(hang)
            await queue.defer("long")
            await asyncio.wait_for(started.wait(), WAIT_SECONDS)
            cancelled = await queue.cancel("long")
            await asyncio.wait_for(stopped.wait(), WAIT_SECONDS)
        return cancelled

    assert asyncio.run(scenario())


def test_stopping_the_worker_waits_for_the_running_job(queue_url: str) -> None:
    async def scenario() -> tuple[bool, bool]:
        started, release = asyncio.Event(), asyncio.Event()
        finished: list[str] = []

        async def slow(job_id: str) -> None:
            started.set()
            await release.wait()
            finished.append(job_id)

        async with opened(queue_for(queue_url)) as queue:
            queue.start_worker(slow)
            await queue.defer("slow")
            await asyncio.wait_for(started.wait(), WAIT_SECONDS)
            stopping = asyncio.create_task(queue.stop_worker())
            done, _ = await asyncio.wait({stopping}, timeout=0.5)
            stopped_early = bool(done)
            release.set()
            await asyncio.wait_for(stopping, WAIT_SECONDS)
        return stopped_early, finished == ["slow"]

    assert asyncio.run(scenario()) == (False, True)


# --- in this process ------------------------------------------------------------------------


def test_a_second_worker_is_refused() -> None:
    async def scenario() -> None:
        async with opened(queue_for(IN_PROCESS)) as queue:
            queue.start_worker(Recorder(expected=1))
            with pytest.raises(RuntimeError, match="already running"):
                queue.start_worker(Recorder(expected=1))

    asyncio.run(scenario())


def test_a_stalled_job_is_queued_again_once_then_given_up() -> None:
    async def scenario() -> tuple[int, int, int]:
        async with opened(queue_for(IN_PROCESS, stalled_seconds=30)) as queue:
            await queue.defer("orphan")
            first = await _take_and_die(queue)
            second = await _take_and_die(queue)
            return first, second, len(list(await queue.app.job_manager.list_jobs_async()))

    assert asyncio.run(scenario()) == (1, 0, 0)


async def _take_and_die(queue: JobQueue) -> int:
    """Play a worker that takes the job and dies: its last beat is long ago."""
    manager, connector = queue.app.job_manager, queue.app.connector
    assert isinstance(connector, InMemoryConnector)
    worker_id = await manager.register_worker()
    assert await manager.fetch_job(queues=None, worker_id=worker_id) is not None
    connector.workers[worker_id] = datetime.now(UTC) - timedelta(seconds=60)
    return await queue.recover_stalled()


# --- on PostgreSQL, shared by replicas --------------------------------------------------------


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A database of its own for each test: procrastinate's tables are created afresh."""
    with fresh_database(service_url(POSTGRES_VARIABLE)) as url:
        yield url


def test_two_replicas_run_each_job_exactly_once(postgres_url: str) -> None:
    jobs = [f"job-{number}" for number in range(40)]

    async def scenario() -> Counter[str]:
        replicas = [queue_for(postgres_url), queue_for(postgres_url)]
        # Both at once: the schema is created by one, the other waits and finds it.
        await asyncio.gather(*(replica.open() for replica in replicas))
        recorder = Recorder(expected=len(jobs))
        try:
            for replica in replicas:
                replica.start_worker(recorder, concurrency=4)
            for number, job_id in enumerate(jobs):
                await replicas[number % 2].defer(job_id)
            await recorder.wait()
        finally:
            await asyncio.gather(*(replica.close() for replica in replicas))
        return Counter(recorder.ran)

    ran = asyncio.run(scenario())
    assert sorted(ran) == sorted(jobs)
    assert set(ran.values()) == {1}


def test_a_job_whose_worker_was_killed_is_done_once_by_another(postgres_url: str) -> None:
    stalled_seconds = 3.0

    async def scenario() -> tuple[list[str], float, int]:
        survivor = queue_for(postgres_url, stalled_seconds=stalled_seconds)
        await survivor.open()
        try:
            await survivor.defer("orphan")
            command = [sys.executable, "-m", "tests.jobs.stalling_worker", postgres_url]
            with subprocess.Popen(
                [*command, str(stalled_seconds)],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.PIPE,
                text=True,
            ) as doomed:
                try:
                    return await _kill_then_recover(survivor, doomed)
                finally:
                    doomed.kill()  # when the test failed before it did
        finally:
            await survivor.close()

    ran, recovery_seconds, left = asyncio.run(scenario())
    print(f"stalled job taken up again {recovery_seconds:.1f} s after SIGKILL")
    assert ran == ["orphan"]
    assert left == 0
    assert recovery_seconds >= stalled_seconds


async def _kill_then_recover(
    survivor: JobQueue, doomed: subprocess.Popen[str]
) -> tuple[list[str], float, int]:
    assert doomed.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(doomed.stdout.readline), WAIT_SECONDS)
    assert line.strip() == "started orphan", f"the doomed worker said {line!r}"
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    killed = time.monotonic()
    recorder = Recorder(expected=1)
    survivor.start_worker(recorder)
    await recorder.wait()
    recovery_seconds = time.monotonic() - killed
    await survivor.stop_worker()
    left = len(list(await survivor.app.job_manager.list_jobs_async()))
    return recorder.ran, recovery_seconds, left
