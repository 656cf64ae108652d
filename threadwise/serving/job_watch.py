"""Tell a transport when a job ends, wherever it runs: the job may be run by another replica,
so the watched jobs are read from the shared ``JobStore`` (all of them in one query, every
``interval`` seconds while any are watched), not learnt from this replica's worker."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field

import anyio.to_thread

from threadwise.jobs.store import JobRecord, JobStore

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5


@dataclass(eq=False)
class Watch:
    """One job watched; ``stop`` it when nobody is left to tell (a socket closed)."""

    job_id: str
    on_end: Callable[[JobRecord], None]
    _watching: set[Watch] = field(repr=False)

    def stop(self) -> None:
        self._watching.discard(self)


@dataclass(eq=False)
class _Poller:
    """The watches of one event loop, and its polling task while there are any."""

    watching: set[Watch] = field(default_factory=set)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class JobWatch:
    """Call ``on_end`` with the job once it has ended (at once if it already has), in the event
    loop that asked: one poller per loop, running only while that loop watches a job."""

    def __init__(self, store: JobStore, interval: float = POLL_SECONDS) -> None:
        self.store = store
        self.interval = interval
        self._pollers: dict[asyncio.AbstractEventLoop, _Poller] = {}

    def watch(self, job_id: str, on_end: Callable[[JobRecord], None]) -> Watch:
        """Watch ``job_id`` until it ends or the watch is stopped; called in a running loop."""
        loop = asyncio.get_running_loop()
        poller = self._pollers.get(loop)
        if poller is None:
            poller = self._pollers[loop] = _Poller()
        watch = Watch(job_id, on_end, poller.watching)
        poller.watching.add(watch)
        poller.wake.set()  # read it now: a job that has already ended is told at once
        if poller.task is None or poller.task.done():
            poller.task = loop.create_task(self._poll(loop, poller), name="job watch")
        return watch

    def watched(self) -> int:
        """Jobs watched, in every loop."""
        return sum(len(poller.watching) for poller in list(self._pollers.values()))

    async def _poll(self, loop: asyncio.AbstractEventLoop, poller: _Poller) -> None:
        try:
            while poller.watching:
                poller.wake.clear()
                ids = {watch.job_id for watch in poller.watching}
                try:
                    ended = await anyio.to_thread.run_sync(self.store.ended_among, ids)
                except Exception:  # the database away for a moment: read again next time
                    log.exception("reading the watched jobs failed; trying again")
                    ended = []
                self._tell(poller, ended)
                if poller.watching:
                    with suppress(TimeoutError):
                        await asyncio.wait_for(poller.wake.wait(), self.interval)
        finally:
            # Nothing watched: no loop left polling, nor this loop's entry kept.
            if not poller.watching and self._pollers.get(loop) is poller:
                del self._pollers[loop]

    @staticmethod
    def _tell(poller: _Poller, ended: list[JobRecord]) -> None:
        by_id = {job.job_id: job for job in ended}
        for watch in [w for w in poller.watching if w.job_id in by_id]:
            poller.watching.discard(watch)
            try:
                watch.on_end(by_id[watch.job_id])
            except Exception:
                log.exception("telling the end of job %s failed", watch.job_id)
