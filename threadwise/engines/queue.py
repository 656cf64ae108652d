"""A bounded work queue in front of an engine that runs one job at a time."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

T = TypeVar("T")


class WorkQueue:
    """Runs jobs one at a time on a worker thread; at most ``capacity`` wait or run.

    Beyond that a job is refused at once with ``OVERLOADED`` (and a ``Retry-After`` estimated
    from recent job durations) rather than left to wait without bound.
    """

    def __init__(self, capacity: int, name: str) -> None:
        self.capacity = capacity
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._depth = 0
        self._durations: deque[float] = deque([5.0], maxlen=20)

    @property
    def depth(self) -> int:
        """Jobs waiting or running: what an autoscaler should scale on."""
        return self._depth

    def expected_wait(self) -> float:
        """Seconds a job queued now would wait to start: recent mean duration times depth."""
        with self._lock:
            return self._depth * sum(self._durations) / len(self._durations)

    def _admit(self) -> None:
        with self._lock:
            if self._depth >= self.capacity:
                mean = sum(self._durations) / len(self._durations)
                raise ServiceError(
                    ErrorCode.OVERLOADED,
                    f"The server is busy: {self._depth} requests are already queued for the "
                    "model. Retry after the time in the Retry-After header.",
                    retry_after=max(1.0, round(mean * self._depth / 2)),
                )
            self._depth += 1

    def _release(self) -> None:
        with self._lock:
            self._depth -= 1

    async def run(self, job: Callable[[], T], deadline: Deadline) -> T:
        self._admit()
        future = self._executor.submit(self._timed, job, deadline)
        # Released when the job ends (or is dropped unstarted), not when its caller stops
        # waiting: a running job still holds the engine.
        future.add_done_callback(lambda _: self._release())
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            deadline.cancelled = True  # a running job sees it and stops at its next check
            raise

    def submit(self, job: Callable[[], T]) -> Future[T]:
        """Queue a job outside admission control (start-up work such as loading the model)."""
        return self._executor.submit(job)

    def _timed(self, job: Callable[[], T], deadline: Deadline) -> T:
        deadline.check()  # it may have waited past its deadline, or been cancelled
        started = time.monotonic()
        try:
            return job()
        finally:
            self._durations.append(time.monotonic() - started)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
