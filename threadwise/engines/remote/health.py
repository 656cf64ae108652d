"""The model server's health: connection failures open the circuit breaker, after which
requests fail at once while the server is probed until it answers again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import httpx2

from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

log = logging.getLogger(__name__)


class ServerHealth:
    """What the breaker says of the server at ``host``; ``probe`` asks it (at no cost)
    whether it answers."""

    def __init__(
        self, host: str, breaker: CircuitBreaker, probe: Callable[[], Awaitable[bool]]
    ) -> None:
        self.host = host
        self.breaker = breaker
        self._probe = probe
        self._recovery: asyncio.Task[None] | None = None

    def down(self, reason: str | None = None) -> ServiceError:
        """What a request answers while the server does not."""
        wait = self.breaker.next_probe() if self.breaker.open else self.breaker.cooldown
        return ServiceError(
            ErrorCode.OVERLOADED,
            f"The model server at {self.host} is not answering ({reason or self.breaker.reason})"
            "; nothing was started. Retry after the time in the Retry-After header.",
            retry_after=max(1.0, wait),
            reason="engine_down",
        )

    def failed(self, reason: str, *, trip: bool = False) -> None:
        """A connection failure (on the engine's loop): the breaker may open, and then it is
        probed until it closes."""
        opened = self.breaker.trip(reason) if trip else self.breaker.failed(reason)
        if opened:
            log.warning(
                "the model server at %s is down (%s): requests fail at once, and it is probed "
                "every %g s",
                self.host,
                reason,
                self.breaker.cooldown,
            )
        if self.breaker.open and (self._recovery is None or self._recovery.done()):
            self._recovery = asyncio.get_running_loop().create_task(self._recover())

    async def _recover(self) -> None:
        """Half-open: probe the server (a request of no cost) until it answers."""
        while self.breaker.open:
            await asyncio.sleep(self.breaker.next_probe())
            try:
                if not await self._probe():
                    self.breaker.trip("it answers /health with an error")
                    continue
            except httpx2.TransportError as exc:
                self.breaker.trip(f"{type(exc).__name__}: {exc}")
                continue
            self.breaker.succeeded()
            log.info("the model server at %s answers again", self.host)
