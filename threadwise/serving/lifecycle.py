"""Graceful shutdown: refuse new work, let work in flight finish, then let the server stop.

Transports register hooks: the WebSocket endpoint, say, sends the replies still due and
closes its sockets with 1001 ("going away") when a drain starts.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

log = logging.getLogger(__name__)

ShutdownHook = Callable[[float], Awaitable[None]]
# What a refused client is told to wait: a load balancer has moved it elsewhere by then.
DRAINING_RETRY_AFTER = 5.0


class Lifecycle:
    def __init__(self) -> None:
        self.draining = False
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._hooks: list[ShutdownHook] = []

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def on_shutdown(self, hook: ShutdownHook) -> Callable[[], None]:
        """Call ``hook(grace_seconds)`` when a drain starts; returns a function that
        unregisters it (a closed WebSocket no longer needs it)."""
        self._hooks.append(hook)
        return lambda: self._hooks.remove(hook) if hook in self._hooks else None

    def admit(self) -> None:
        """Refuse new work once a drain has started."""
        if self.draining:
            raise ServiceError(
                ErrorCode.OVERLOADED,
                "The server is shutting down and takes no new work; nothing was started. "
                "Retry after the time in the Retry-After header (another replica will answer).",
                retry_after=DRAINING_RETRY_AFTER,
                reason="draining",
            )

    @asynccontextmanager
    async def working(self) -> AsyncIterator[None]:
        """Count the work inside as in flight (a drain waits for it)."""
        self.admit()
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()

    async def drain(self, grace_seconds: float) -> bool:
        """Stop taking work, run the hooks, and wait up to ``grace_seconds`` for the work in
        flight; True when it all finished in time."""
        self.draining = True
        started = time.monotonic()
        log.info("draining: %d requests in flight, %g s grace", self._in_flight, grace_seconds)
        hooks = [asyncio.ensure_future(hook(grace_seconds)) for hook in list(self._hooks)]
        try:
            await asyncio.wait_for(self._idle.wait(), grace_seconds)
            finished = True
        except TimeoutError:
            finished = False
        left = max(0.0, grace_seconds - (time.monotonic() - started))
        if hooks:
            _, pending = await asyncio.wait(hooks, timeout=max(left, 0.1))
            for hook in pending:
                hook.cancel()
        log.info(
            "drained in %.1f s%s",
            time.monotonic() - started,
            "" if finished else f"; {self._in_flight} requests did not finish in time",
        )
        return finished
