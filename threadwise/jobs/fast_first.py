"""Shortest work first between a worker's two lanes: a job's part for the language model waits
while fast jobs run on the same worker, or wait in the queue for any.

A batch of fast-tier translations takes a fraction of a second; a summary takes tens. On two
cores a model's threads and the fast work share the CPU, so each summary started beside a
burst of translations slows every one of them, while holding it back costs it only the
burst's few seconds. Run the short first, as a scheduler minimizing the mean
time to completion does, and the model part waits, at most ``max_wait_seconds``: a steady
stream of fast jobs never starves the model's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress


class FastFirst:
    """Where fast work says it runs (``fast()``) and model work waits its turn
    (``model_turn()``), in one event loop."""

    def __init__(
        self,
        *,
        quiet_seconds: float = 0.25,
        max_wait_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # The next batch of a burst is usually fetched within this of the last one's end.
        self.quiet_seconds = quiet_seconds
        self.max_wait_seconds = max_wait_seconds
        self._clock = clock
        self._running = 0
        self._last_end = float("-inf")
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @contextmanager
    def fast(self) -> Iterator[None]:
        """Fast work runs within."""
        self._running += 1
        try:
            yield
        finally:
            self._running -= 1
            self._last_end = self._clock()
            if self._changed is not None:
                self._changed.set()

    @property
    def busy(self) -> bool:
        return self._running > 0 or self._clock() - self._last_end < self.quiet_seconds

    async def model_turn(self, fast_pending: Callable[[], Awaitable[int]] | None = None) -> None:
        """Once no fast work has run here for ``quiet_seconds`` (nor since this was called)
        and ``fast_pending()`` (fast work queued or running anywhere) is 0, or
        ``max_wait_seconds`` on."""
        now = self._clock()
        deadline = now + self.max_wait_seconds
        # A burst's jobs are stored and queued in groups a few milliseconds apart: one that
        # came first alone may be this one, its fast jobs not queued yet.
        settled = now + self.quiet_seconds
        changed = self._event()
        while self._clock() < deadline:
            changed.clear()
            if self._running:
                wait = deadline - self._clock()
            elif self.busy or self._clock() < settled:  # quiet for a moment: is it over?
                until = max(self._last_end + self.quiet_seconds, settled)
                wait = min(deadline, until) - self._clock()
            elif fast_pending is not None and await fast_pending() > 0:
                wait = min(deadline - self._clock(), self.quiet_seconds)  # then ask again
            else:
                return
            with suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=max(0.0, wait))

    def _event(self) -> asyncio.Event:
        """The event ``fast()`` sets, of the running loop (a test may run several)."""
        loop = asyncio.get_running_loop()
        if self._changed is None or self._loop is not loop:
            self._loop, self._changed = loop, asyncio.Event()
        return self._changed
