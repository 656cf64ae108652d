"""A bounded, prioritized work queue in front of an engine that runs one job at a time.

Like TGI's router or Triton's dynamic batcher queue, it admits work only while the queue has
room, so that an overloaded server answers ``503 OVERLOADED`` at once (with a ``Retry-After``
estimated from what is queued) instead of letting requests wait without bound. Jobs carry a
priority: interactive work (a translation a user waits for) is taken before batch work (a
summary), but a batch job that has waited ``BATCH_DELAY_SECONDS`` ranks with new interactive
work, so neither starves. Background work (an asynchronous job's, ``in_background``) ranks
behind both for ``BACKGROUND_DELAY_SECONDS``, and while requests come it leaves one thread
(of several) free for them. A job whose caller goes away (its asyncio task
is cancelled: a dropped connection, a WebSocket cancel frame) leaves the queue at once; a
running job is told
through its deadline and stops at its next check. A job may name *lanes*: no two jobs of a
lane run at once, so that the jobs of one lane (large requests, say) wait in the queue for
each other and never hold every thread. A job runs in the context variables of the code that
queued it (a request's token meter, say), as ``asyncio.to_thread`` would run it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Generic, Literal, Protocol, TypeVar

from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

log = logging.getLogger(__name__)

T = TypeVar("T")

Policy = Literal["priority", "fifo"]

# How long a batch job may wait before it ranks with interactive work queued now.
BATCH_DELAY_SECONDS = 30.0
# How long background work may wait before it ranks with requests queued now: requests come
# first, but a steady stream of them does not hold an asynchronous job back for ever.
BACKGROUND_DELAY_SECONDS = 600.0
# For this long after a request's work was queued, background work leaves one thread free
# (with more than one): the next request starts at once rather than after a job's part.
FOREGROUND_RESERVE_SECONDS = 2.0


class Priority(IntEnum):
    INTERACTIVE = 0  # short work a user waits for (a translation by the model)
    BATCH = 1  # long work (a summary)
    BACKGROUND = 2  # an asynchronous job's work: nobody waits on a connection for it


_background: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "threadwise_background", default=False
)


@contextlib.contextmanager
def in_background() -> Iterator[None]:
    """Queue the work started within as ``Priority.BACKGROUND``, whatever its own priority:
    an asynchronous job runs the superpowers as a request does, behind the requests."""
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


@dataclass
class _Job(Generic[T]):
    work: Callable[[], T]
    deadline: Deadline | None
    priority: Priority
    rank: float
    order: int
    enqueued: float
    cost: float = 1.0  # relative size: a job of cost 2 is expected to take twice as long
    lanes: frozenset[str] = frozenset()
    future: Future[T] = field(default_factory=Future)
    started: float | None = None
    # The submitter's context variables (the request's meter, say), for the work to run in.
    context: contextvars.Context = field(default_factory=contextvars.copy_context)


class CoreCounter(Protocol):
    """Counts running jobs that compete with the model for cores (``engines.cores.CoreShare``)."""

    def busy(self) -> AbstractContextManager[None]: ...


class SchedulerObserver:
    """What the scheduler reports (metrics); the default ignores everything."""

    def waited(self, queue: str, priority: Priority, seconds: float) -> None:
        """A job started after waiting ``seconds``."""

    def ran(self, queue: str, priority: Priority, seconds: float) -> None:
        """A job ended after running ``seconds``."""

    def refused(self, queue: str, priority: Priority) -> None:
        """A job was refused: the queue was full."""


class Scheduler:
    """``workers`` threads (one for an engine that runs one job at a time) take jobs by rank;
    at most ``capacity`` jobs of each priority wait or run, and one more is refused with
    ``OVERLOADED``, as is one that would not finish within its deadline. Waits are estimated
    from recent run times per unit of a job's ``cost`` (``typical_seconds`` until measured)."""

    def __init__(
        self,
        capacity: int,
        name: str,
        *,
        policy: Policy = "priority",
        observer: SchedulerObserver | None = None,
        nice: int = 0,
        workers: int = 1,
        typical_seconds: tuple[float, float] = (2.0, 5.0),
        cores: CoreCounter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self._clock = clock
        # Jobs are counted there while they run: they compete with the model for cores.
        self._cores = cores
        self.name = name
        self.policy = policy
        self.observer = observer or SchedulerObserver()
        self._nice = nice
        self._cond = threading.Condition()
        self._waiting: list[_Job[Any]] = []
        self._running: list[_Job[Any]] = []
        self._workers = workers
        self._counts = dict.fromkeys(Priority, 0)  # waiting or running, per priority
        self._order = itertools.count()
        # Recent run time per unit of cost, per priority: the basis of every wait estimate.
        # Background work is of either kind: the slower one's guess until measured.
        guesses = (*typical_seconds, max(typical_seconds))
        self._mean = dict(zip(Priority, guesses, strict=True))
        self._observed: set[Priority] = set()
        self._closed = False
        self._foreground_at = float("-inf")  # when a request's work was last queued
        for number in range(workers):
            threading.Thread(target=self._work, name=f"{name}-{number}", daemon=True).start()

    # --- what autoscalers, readiness and callers look at -------------------------------------

    @property
    def depth(self) -> int:
        """Requests waiting or running (not start-up work): what an autoscaler scales on."""
        with self._cond:
            return sum(j.order >= 0 for j in (*self._waiting, *self._running))

    @property
    def waiting(self) -> int:
        with self._cond:
            return sum(j.order >= 0 for j in self._waiting)

    @property
    def running(self) -> int:
        """Requests holding the engine now (not start-up work)."""
        with self._cond:
            return sum(j.order >= 0 for j in self._running)

    def saturated(self, priority: Priority = Priority.BATCH) -> bool:
        """Would a job of ``priority`` be refused now?"""
        with self._cond:
            return self._counts[priority] >= self.capacity

    def expected_wait(self, priority: Priority = Priority.BATCH) -> float:
        """Seconds a job of ``priority`` queued now would wait before it starts."""
        with self._cond:
            return self._wait_locked(self._rank(priority, self._clock()), frozenset())

    def _busy_lanes(self) -> set[str]:
        return {lane for j in self._running for lane in j.lanes}

    def _left(self, job: _Job[Any], now: float) -> float:
        """Expected seconds until a running job ends: its mean, or a quarter of what it has
        already run (it is slower than the mean, and probably not nearly done)."""
        elapsed = now - (job.started or now)
        mean = self._mean[job.priority] * job.cost
        return max(mean - elapsed, mean / 4, elapsed / 4)

    def _wait_locked(self, rank: float, lanes: frozenset[str]) -> float:
        now = self._clock()
        # Behind the jobs of its lanes, whatever the other threads do.
        lane_wait = sum(self._left(j, now) for j in self._running if j.lanes & lanes) + sum(
            self._mean[j.priority] * j.cost
            for j in self._waiting
            if j.lanes & lanes and j.rank <= rank
        )
        # Ahead of it for a thread: the waiting jobs that could start (not those of busy lanes).
        busy = self._busy_lanes()
        ahead = [j for j in self._waiting if j.rank <= rank and not j.lanes & busy]
        if len(self._running) < self._workers and not ahead:
            return lane_wait
        left = [self._left(j, now) for j in self._running]
        queued = sum(self._mean[j.priority] * j.cost for j in ahead)
        wait = (
            min(left, default=0.0) if len(left) >= self._workers else 0.0
        ) + queued / self._workers
        return max(wait, lane_wait)

    # --- admission --------------------------------------------------------------------------

    def _rank(self, priority: Priority, now: float) -> float:
        if priority is Priority.BACKGROUND:
            return now + BACKGROUND_DELAY_SECONDS
        if self.policy == "fifo" or priority is Priority.INTERACTIVE:
            return now
        return now + BATCH_DELAY_SECONDS

    def _enqueue(
        self,
        work: Callable[[], T],
        deadline: Deadline | None,
        priority: Priority,
        cost: float,
        lanes: frozenset[str],
    ) -> _Job[T]:
        now = self._clock()
        with self._cond:
            if self._closed:
                raise ServiceError(
                    ErrorCode.OVERLOADED,
                    "The server is shutting down. Retry on another replica, or after the time "
                    "in the Retry-After header.",
                    retry_after=5,
                    reason="draining",
                )
            if self._counts[priority] >= self.capacity:
                retry_after = self._retry_after_locked()
                self.observer.refused(self.name, priority)
                raise ServiceError(
                    ErrorCode.OVERLOADED,
                    f"The server is busy: {self._counts[priority]} requests of this kind are "
                    f"already queued for the {self.name} engine (the limit is {self.capacity}); "
                    "nothing was started. Retry after the time in the Retry-After header.",
                    retry_after=retry_after,
                    reason="queue_full",
                )
            rank = self._rank(priority, now)
            wait = self._wait_locked(rank, lanes)
            needed = wait + self._mean[priority] * cost
            if deadline is not None and wait > 0 and needed > deadline.remaining():
                # It would wait, then time out: refuse it now, while the client can go elsewhere.
                self.observer.refused(self.name, priority)
                raise ServiceError(
                    ErrorCode.OVERLOADED,
                    f"The server is busy: the {self.name} engine's queue needs ~{wait:.0f} s "
                    "before this request could start, too long to finish within its "
                    f"{deadline.seconds:g} s deadline; nothing was started. Retry after the "
                    "time in the Retry-After header.",
                    retry_after=needed - deadline.remaining(),
                    reason="deadline",
                )
            job: _Job[T] = _Job(work, deadline, priority, rank, next(self._order), now, cost, lanes)
            self._waiting.append(job)
            self._counts[priority] += 1
            if priority is not Priority.BACKGROUND:
                self._foreground_at = now
            self._cond.notify()
            return job

    def _retry_after_locked(self) -> float:
        """When a slot frees: the first running job's expected end (at least 1 s)."""
        now = self._clock()
        left = [self._left(j, now) for j in self._running]
        return max(1.0, min(left, default=1.0))

    async def run(
        self,
        work: Callable[[], T],
        deadline: Deadline | None = None,
        priority: Priority = Priority.BATCH,
        cost: float = 1.0,
        lanes: Collection[str] = (),
    ) -> T:
        """Run ``work`` on the worker thread, once no other job holds one of its ``lanes``;
        ``OVERLOADED`` at once if the queue is full.

        Cancelling the awaiting task removes a waiting job from the queue (its slot is free at
        once) and tells a running one, through ``deadline``, to stop at its next check."""
        if _background.get():
            priority = Priority.BACKGROUND
        job = self._enqueue(work, deadline, priority, cost, frozenset(lanes))
        try:
            return await asyncio.wrap_future(job.future)
        except asyncio.CancelledError:
            self._withdraw(job)
            raise

    def _withdraw(self, job: _Job[Any]) -> None:
        with self._cond:
            if job in self._waiting:
                self._waiting.remove(job)
                self._counts[job.priority] -= 1
                job.future.cancel()
                return
        if job.deadline is not None:
            job.deadline.cancel()  # running: it stops at its next deadline check

    def submit(self, work: Callable[[], T]) -> Future[T]:
        """Queue start-up work (loading the model) ahead of everything, outside admission and
        the counts."""
        job: _Job[T] = _Job(work, None, Priority.INTERACTIVE, float("-inf"), -1, self._clock())
        with self._cond:
            self._waiting.append(job)
            self._cond.notify()
        return job.future

    # --- the worker ---------------------------------------------------------------------------

    def _work(self) -> None:
        if self._nice:
            # Below the event loop and the fast engines: they preempt the model, not the
            # reverse. Threads the engine starts from here inherit the value.
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self._nice)
            except OSError as exc:
                log.warning("could not lower the %s worker's priority: %s", self.name, exc)
        while True:
            with self._cond:
                while not (ready := self._ready()) and not self._closed:
                    # Background work held back for requests: looked at again once the
                    # reservation lapses, should no other event wake the thread first.
                    self._cond.wait(self._reserved_for() if self._waiting else None)
                if not ready:
                    return
                job = min(ready, key=lambda j: (j.rank, j.order))
                self._waiting.remove(job)
                job.started = self._clock()
                self._running.append(job)
            settle = self._execute(job)
            with self._cond:
                self._running.remove(job)
                if job.order >= 0:
                    self._counts[job.priority] -= 1
                if job.lanes:
                    self._cond.notify_all()  # its lanes are free: jobs of them can start
            settle()  # the caller hears of the end once its slot is free

    def _ready(self) -> list[_Job[Any]]:
        """Waiting jobs none of whose lanes a running job holds; background ones only while
        they would leave a thread free for requests, if requests came lately."""
        busy = self._busy_lanes()
        ready = [j for j in self._waiting if not j.lanes & busy]
        if self._reserved_for() is not None:
            running = sum(j.priority is Priority.BACKGROUND for j in self._running)
            if running >= self._workers - 1:
                ready = [j for j in ready if j.priority is not Priority.BACKGROUND]
        return ready

    def _reserved_for(self) -> float | None:
        """Seconds a thread is still kept from background work for requests; None: not."""
        if self._workers < 2:
            return None
        left = self._foreground_at + FOREGROUND_RESERVE_SECONDS - self._clock()
        return left if left > 0 else None

    def _check_time_left(self, job: _Job[Any]) -> None:
        """A job that waited so long it cannot finish in time is refused, not started: the
        queue, not the job, was the problem (``OVERLOADED`` rather than ``REQUEST_TIMEOUT``)."""
        assert job.deadline is not None and job.started is not None
        left = job.deadline.remaining()
        waited = job.started - job.enqueued
        with self._cond:
            mean = self._mean[job.priority] * job.cost
        if left > mean or waited < 0.5:
            if left <= 0:  # it never could have: its deadline was shorter than no wait at all
                job.deadline.check()
            return
        raise ServiceError(
            ErrorCode.OVERLOADED,
            f"The server is busy: this request waited {waited:.0f} s for the {self.name} "
            f"engine, too long to finish within its {job.deadline.seconds:g} s deadline; "
            "nothing was started. Retry after the time in the Retry-After header.",
            retry_after=mean,
            reason="queue_wait",
        )

    def _execute(self, job: _Job[Any]) -> Callable[[], None]:
        """Run ``job``; what tells its caller the outcome."""
        assert job.started is not None
        if not job.future.set_running_or_notify_cancel():
            return lambda: None
        self.observer.waited(self.name, job.priority, job.started - job.enqueued)
        try:
            if job.deadline is not None:
                job.deadline.check()  # it may have been cancelled
                self._check_time_left(job)
        except BaseException as exc:
            return functools.partial(job.future.set_exception, exc)
        try:
            if self._cores is None:
                result = job.context.run(job.work)
            else:
                with self._cores.busy():
                    result = job.context.run(job.work)
        except BaseException as exc:
            return functools.partial(job.future.set_exception, exc)
        else:
            return functools.partial(job.future.set_result, result)
        finally:
            seconds = self._clock() - job.started
            if job.order >= 0:  # start-up work says nothing about requests
                with self._cond:
                    # The first run replaces the guess; later ones move the mean a third.
                    rate = seconds / job.cost
                    old = self._mean[job.priority] if job.priority in self._observed else rate
                    self._mean[job.priority] = (2 * old + rate) / 3
                    self._observed.add(job.priority)
                self.observer.ran(self.name, job.priority, seconds)

    def hand_back_waiting(self) -> int:
        """Refuse the jobs that wait, with ``OVERLOADED`` (none of them started: another
        replica can take them), and say how many; new jobs are still taken (a drain lets the
        requests in flight finish, next steps included). Jobs with no caller to answer (a
        model's load) are kept."""
        with self._cond:
            handed = [job for job in self._waiting if job.order >= 0]
            for job in handed:
                self._waiting.remove(job)
                self._counts[job.priority] -= 1
                job.future.set_exception(
                    ServiceError(
                        ErrorCode.OVERLOADED,
                        "The server is shutting down; this request had not started. Retry "
                        "it on another replica, or after the time in the Retry-After header.",
                        retry_after=1,
                        reason="draining",
                    )
                )
        if handed:
            log.info("%s: %d waiting jobs handed back at shutdown", self.name, len(handed))
        return len(handed)

    def shutdown(self) -> None:
        """Refuse new work and drop what waits; a running job finishes on its own."""
        with self._cond:
            self._closed = True
            for job in self._waiting:
                job.future.cancel()
                if job.order >= 0:
                    self._counts[job.priority] -= 1
            self._waiting.clear()
            self._cond.notify_all()
