from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.work_queue import Priority, Scheduler


def scheduler(capacity: int, **options: Any) -> Scheduler:
    """Jobs expected to take 10 ms: no admission is refused for its deadline."""
    options.setdefault("typical_seconds", (0.01, 0.01))
    return Scheduler(capacity=capacity, name="test", **options)


async def started(scheduler: Scheduler, release: threading.Event) -> asyncio.Future[bool]:
    """A job holding the worker until ``release`` is set."""
    task = asyncio.ensure_future(scheduler.run(release.wait, Deadline(10)))
    while scheduler.depth == 0 or scheduler.waiting:
        await asyncio.sleep(0.01)
    return task


def test_full_queue_refuses_at_once_with_retry_after() -> None:
    async def scenario() -> None:
        queue = scheduler(1)
        release = threading.Event()
        first = await started(queue, release)
        began = time.monotonic()
        with pytest.raises(ServiceError) as caught:
            await queue.run(lambda: True, Deadline(10))
        assert time.monotonic() - began < 0.1
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


def test_job_that_waited_past_its_deadline_is_not_run() -> None:
    async def scenario() -> None:
        queue = scheduler(2)
        release = threading.Event()
        first = await started(queue, release)
        ran: list[int] = []
        second = asyncio.ensure_future(queue.run(lambda: ran.append(1), Deadline(0.05)))
        await asyncio.sleep(0)
        await asyncio.sleep(0.2)
        release.set()
        await first
        with pytest.raises(ServiceError) as caught:
            await second
        # Nothing was started: the queue was too long, which a retry elsewhere can avoid.
        assert caught.value.code is ErrorCode.OVERLOADED
        assert caught.value.reason == "queue_wait" and caught.value.retry_after
        assert ran == []
        queue.shutdown()


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
        second = asyncio.ensure_future(queue.run(lambda: None, Deadline(10)))
        await asyncio.sleep(0.01)
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
        waiting = asyncio.ensure_future(queue.run(lambda: ran.append(1), Deadline(10)))
        await asyncio.sleep(0.01)
        assert queue.depth == 2
        waiting.cancel()
        await asyncio.sleep(0)
        assert queue.depth == 1  # at once, while the first still runs
        release.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert ran == [] and queue.depth == 0
        queue.shutdown()

    asyncio.run(scenario())


def test_a_cancelled_running_job_is_told_through_its_deadline() -> None:
    async def scenario() -> None:
        queue = scheduler(1)
        deadline = Deadline(10)
        checks: list[bool] = []

        def work() -> None:
            while not deadline.stop_requested():
                time.sleep(0.01)
            checks.append(deadline.cancelled)

        task = asyncio.ensure_future(queue.run(work, deadline))
        while queue.depth == 0:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        while queue.depth:
            await asyncio.sleep(0.01)
        assert checks == [True]
        queue.shutdown()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("policy", "expected"),
    [("priority", ["translate", "summary"]), ("fifo", ["summary", "translate"])],
)
def test_interactive_work_goes_before_waiting_summaries(policy: str, expected: list[str]) -> None:
    async def scenario() -> list[str]:
        queue = scheduler(4, policy=policy)
        release = threading.Event()
        first = await started(queue, release)
        order: list[str] = []
        summary = asyncio.ensure_future(
            queue.run(lambda: order.append("summary"), Deadline(10), Priority.BATCH)
        )
        await asyncio.sleep(0.01)
        translate = asyncio.ensure_future(
            queue.run(lambda: order.append("translate"), Deadline(10), Priority.INTERACTIVE)
        )
        await asyncio.sleep(0.01)
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
        waiting = [
            asyncio.ensure_future(queue.run(lambda: ran.append(1), Deadline(10))) for _ in range(2)
        ]
        while queue.waiting < 2:
            await asyncio.sleep(0)
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
        stuck = asyncio.ensure_future(queue.run(release.wait, Deadline(10), lanes={"large"}))
        while queue.depth == 0 or queue.waiting:
            await asyncio.sleep(0.01)
        order: list[str] = []
        behind = asyncio.ensure_future(
            queue.run(lambda: order.append("large"), Deadline(60), cost=1000, lanes={"large"})
        )
        await asyncio.sleep(0.01)
        # A thread is free for other work: the large job waiting for its lane is not ahead.
        assert queue.expected_wait() < 0.1
        began = time.monotonic()
        await queue.run(lambda: order.append("other lane"), Deadline(10), lanes={"other"})
        await queue.run(lambda: order.append("no lane"), Deadline(10))
        assert time.monotonic() - began < 0.5 and order == ["other lane", "no lane"]
        release.set()
        await asyncio.gather(stuck, behind)
        assert order == ["other lane", "no lane", "large"]
        queue.shutdown()

    asyncio.run(scenario())
