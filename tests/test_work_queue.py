from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from tests.clock import ManualClock
from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.work_queue import FOREGROUND_RESERVE_SECONDS, Priority, Scheduler, in_background

T = TypeVar("T")


def scheduler(capacity: int, **options: Any) -> Scheduler:
    """Jobs expected to take 10 ms: no admission is refused for its deadline."""
    options.setdefault("typical_seconds", (0.01, 0.01))
    return Scheduler(capacity=capacity, name="test", **options)


class Signal:
    """Set on any thread (a worker's), awaited on the event loop."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def set(self) -> None:
        self._loop.call_soon_threadsafe(self._event.set)

    async def wait(self) -> None:
        await asyncio.wait_for(self._event.wait(), 10)


async def queued(run: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """``run`` (a ``Scheduler.run``) as a task, once its job is queued: it queues before its
    first ``await``, so one turn of the event loop is all it takes (not a wait on time)."""
    task = asyncio.ensure_future(run)
    await asyncio.sleep(0)
    return task


async def started(
    scheduler: Scheduler, release: threading.Event, deadline: Deadline | None = None, **options: Any
) -> asyncio.Task[bool]:
    """A job holding a worker until ``release`` is set, once it runs."""
    running = Signal()

    def hold() -> bool:
        running.set()
        return release.wait()

    task = asyncio.ensure_future(scheduler.run(hold, deadline or Deadline(10), **options))
    await running.wait()
    return task


def test_full_queue_refuses_at_once_with_retry_after() -> None:
    async def scenario() -> None:
        queue = scheduler(1)
        release = threading.Event()
        first = await started(queue, release)
        with pytest.raises(ServiceError) as caught:
            await queue.run(lambda: True, Deadline(10))
        assert not first.done()  # refused while the first still holds the worker
        assert caught.value.code is ErrorCode.OVERLOADED
        assert caught.value.reason == "queue_full"
        assert caught.value.retry_after is not None and caught.value.retry_after >= 1
        assert queue.saturated(Priority.BATCH) and not queue.saturated(Priority.INTERACTIVE)
        release.set()
        assert await first is True
        assert queue.depth == 0
        assert await queue.run(lambda: 7, Deadline(10)) == 7
        queue.shutdown()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("seconds", "code", "reason"),
    [
        # Less left of its deadline than a job takes: the queue was too long, which a retry
        # elsewhere can avoid.
        (1.5, ErrorCode.OVERLOADED, "queue_wait"),
        # Its deadline passed while it waited.
        (0.5, ErrorCode.REQUEST_TIMEOUT, None),
    ],
)
def test_job_that_waited_too_long_for_its_deadline_is_not_run(
    seconds: float, code: ErrorCode, reason: str | None
) -> None:
    async def scenario() -> None:
        clock = ManualClock(1000.0)
        queue = scheduler(2, clock=clock)
        release = threading.Event()
        first = await started(queue, release)
        ran: list[int] = []
        second = await queued(queue.run(lambda: ran.append(1), Deadline(seconds, clock)))
        clock.now += 1.0  # the first runs for a second (the mean from then on)
        release.set()
        await first
        with pytest.raises(ServiceError) as caught:
            await second
        assert caught.value.code is code
        assert caught.value.reason == reason
        if code is ErrorCode.OVERLOADED:
            assert caught.value.retry_after == 1.0
        assert ran == []  # nothing was started
        queue.shutdown()

    asyncio.run(scenario())


def test_a_job_that_would_miss_its_deadline_in_the_queue_is_refused_at_once() -> None:
    async def scenario() -> None:
        queue = Scheduler(capacity=8, name="test", typical_seconds=(2.0, 10.0))
        release = threading.Event()
        first = await started(queue, release)
        with pytest.raises(ServiceError) as caught:
            await queue.run(lambda: None, Deadline(5))  # ~10 s ahead of it
        assert caught.value.code is ErrorCode.OVERLOADED
        assert caught.value.reason == "deadline"
        assert caught.value.retry_after is not None and caught.value.retry_after >= 1
        assert queue.depth == 1
        release.set()
        await first
        # With nothing ahead, a short deadline is the caller's choice: the job runs.
        assert await queue.run(lambda: 3, Deadline(5)) == 3
        queue.shutdown()

    asyncio.run(scenario())


def test_expected_wait_grows_with_the_queue() -> None:
    async def scenario() -> None:
        queue = scheduler(3)
        assert queue.expected_wait() == 0
        release = threading.Event()
        first = await started(queue, release)
        one = queue.expected_wait()
        second = await queued(queue.run(lambda: None, Deadline(10)))
        assert queue.expected_wait() > one > 0
        # Interactive work is not behind the waiting batch job.
        assert queue.expected_wait(Priority.INTERACTIVE) < queue.expected_wait(Priority.BATCH)
        release.set()
        await asyncio.gather(first, second)
        queue.shutdown()

    asyncio.run(scenario())


def test_a_cancelled_waiting_job_leaves_the_queue_at_once() -> None:
    async def scenario() -> None:
        queue = scheduler(2)
        release = threading.Event()
        first = await started(queue, release)
        ran: list[int] = []
        waiting = await queued(queue.run(lambda: ran.append(1), Deadline(10)))
        assert queue.depth == 2
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert queue.depth == 1 and not first.done()  # at once, while the first still runs
        release.set()
        await first
        assert ran == [] and queue.depth == 0
        queue.shutdown()

    asyncio.run(scenario())


def test_a_cancelled_running_job_is_told_through_its_deadline() -> None:
    async def scenario() -> None:
        queue = scheduler(1)
        deadline = Deadline(10)
        checks: list[bool] = []
        running, stopped = Signal(), Signal()

        def work() -> None:
            running.set()
            while not deadline.stop_requested():
                time.sleep(0.01)  # a slow engine's work, checking its deadline as it goes
            checks.append(deadline.cancelled)
            stopped.set()

        task = asyncio.ensure_future(queue.run(work, deadline))
        await running.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await stopped.wait()
        assert checks == [True]
        queue.shutdown()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("policy", "expected"),
    [("priority", ["translate", "summary"]), ("fifo", ["summary", "translate"])],
)
def test_interactive_work_goes_before_waiting_summaries(policy: str, expected: list[str]) -> None:
    async def scenario() -> list[str]:
        clock = ManualClock(1000.0)
        queue = scheduler(4, policy=policy, clock=clock)
        release = threading.Event()
        first = await started(queue, release)
        order: list[str] = []
        summary = await queued(
            queue.run(lambda: order.append("summary"), Deadline(10), Priority.BATCH)
        )
        clock.now += 0.01
        translate = await queued(
            queue.run(lambda: order.append("translate"), Deadline(10), Priority.INTERACTIVE)
        )
        release.set()
        await asyncio.gather(first, summary, translate)
        queue.shutdown()
        return order

    assert asyncio.run(scenario()) == expected


def test_workers_run_jobs_side_by_side() -> None:
    async def scenario() -> None:
        queue = scheduler(4, workers=2)
        both = threading.Barrier(2, timeout=2)
        await asyncio.gather(queue.run(both.wait), queue.run(both.wait))
        queue.shutdown()

    asyncio.run(scenario())


def test_shutdown_refuses_new_work() -> None:
    async def scenario() -> None:
        queue = scheduler(1)
        queue.shutdown()
        with pytest.raises(ServiceError) as caught:
            await queue.run(lambda: None)
        assert caught.value.code is ErrorCode.OVERLOADED

    asyncio.run(scenario())


def test_at_a_drain_waiting_jobs_are_handed_back_and_the_running_one_finishes() -> None:
    async def scenario() -> None:
        queue = scheduler(3)
        release = threading.Event()
        first = await started(queue, release)
        ran: list[int] = []
        waiting = [await queued(queue.run(lambda: ran.append(1), Deadline(10))) for _ in range(2)]
        assert (queue.waiting, queue.running, queue.depth) == (2, 1, 3)
        assert queue.hand_back_waiting() == 2
        for job in waiting:
            with pytest.raises(ServiceError) as caught:
                await job
            assert caught.value.code is ErrorCode.OVERLOADED
            assert caught.value.reason == "draining"
        assert queue.depth == 1
        # A request in flight may still queue its next step.
        later = asyncio.ensure_future(queue.run(lambda: 5, Deadline(10)))
        release.set()
        assert await first is True and await later == 5
        assert ran == [] and queue.depth == 0
        queue.shutdown()

    asyncio.run(scenario())


def test_a_busy_lane_holds_one_thread_and_the_others_keep_working() -> None:
    """Two jobs of one lane (large requests) never take two threads: the second waits in
    the queue, and work queued after it runs on the free thread."""

    async def scenario() -> None:
        queue = scheduler(8, workers=2)
        release = threading.Event()
        stuck = await started(queue, release, lanes={"large"})
        order: list[str] = []
        behind = await queued(
            queue.run(lambda: order.append("large"), Deadline(60), cost=1000, lanes={"large"})
        )
        # A thread is free for other work: the large job waiting for its lane is not ahead.
        assert queue.expected_wait() < 0.1
        await queue.run(lambda: order.append("other lane"), Deadline(10), lanes={"other"})
        await queue.run(lambda: order.append("no lane"), Deadline(10))
        assert order == ["other lane", "no lane"] and not stuck.done()
        release.set()
        await asyncio.gather(stuck, behind)
        assert order == ["other lane", "no lane", "large"]
        queue.shutdown()

    asyncio.run(scenario())


def test_background_work_goes_last_and_leaves_a_thread_to_requests() -> None:
    async def scenario() -> tuple[list[str], bool, bool]:
        clock = ManualClock(1000.0)
        queue = scheduler(8, workers=2, clock=clock)
        order: list[str] = []
        release = threading.Event()
        with in_background():
            held = await started(queue, release)  # a job's part holds one thread
        # A request came lately: the other thread is kept for requests, so a second job
        # part waits, and the request queued after it starts first, at once.
        with in_background():
            waiting = await queued(queue.run(lambda: order.append("job"), Deadline(10)))
        summary = await queued(
            queue.run(lambda: order.append("summary"), Deadline(10), Priority.BATCH)
        )
        await summary
        held_back = not waiting.done()
        # Once no request has come for the reservation's time, the job part takes the
        # free thread too (the idle thread looks again when the reservation would lapse).
        clock.now += FOREGROUND_RESERVE_SECONDS + 0.1
        await asyncio.wait_for(waiting, 10)
        release.set()
        await held
        queue.shutdown()
        return order, held_back, queue.saturated(Priority.BACKGROUND)

    order, held_back, saturated = asyncio.run(scenario())
    assert order == ["summary", "job"] and held_back and not saturated
