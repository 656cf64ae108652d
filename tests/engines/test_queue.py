from __future__ import annotations

import asyncio
import threading

import pytest

from threadwise.deadlines import Deadline
from threadwise.engines.queue import WorkQueue
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


def test_full_queue_refuses_at_once_with_retry_after() -> None:
    async def scenario() -> None:
        queue = WorkQueue(capacity=1, name="test")
        release = threading.Event()
        first = asyncio.create_task(queue.run(release.wait, Deadline(10)))
        await asyncio.sleep(0.05)
        with pytest.raises(ServiceError) as caught:
            await queue.run(lambda: True, Deadline(10))
        assert caught.value.code is ErrorCode.OVERLOADED
        assert caught.value.retry_after is not None and caught.value.retry_after >= 1
        release.set()
        assert await first is True
        assert queue.depth == 0
        assert await queue.run(lambda: 7, Deadline(10)) == 7
        queue.shutdown()

    asyncio.run(scenario())


def test_job_that_waited_past_its_deadline_is_not_run() -> None:
    async def scenario() -> None:
        queue = WorkQueue(capacity=2, name="test")
        release = threading.Event()
        first = asyncio.create_task(queue.run(release.wait, Deadline(10)))
        ran: list[int] = []
        second = asyncio.create_task(queue.run(lambda: ran.append(1), Deadline(0.05)))
        await asyncio.sleep(0.2)
        release.set()
        await first
        with pytest.raises(ServiceError) as caught:
            await second
        assert caught.value.code is ErrorCode.REQUEST_TIMEOUT
        assert ran == []
        queue.shutdown()

    asyncio.run(scenario())


def test_expected_wait_grows_with_the_queue() -> None:
    async def scenario() -> None:
        queue = WorkQueue(capacity=3, name="test")
        assert queue.expected_wait() == 0
        release = threading.Event()
        first = asyncio.create_task(queue.run(release.wait, Deadline(10)))
        await asyncio.sleep(0.05)
        assert queue.expected_wait() > 0
        release.set()
        await first
        queue.shutdown()

    asyncio.run(scenario())
