"""When and how long to wait before trying a call again.

Only what can succeed later is retried: an answer the server marks ``retryable`` (a rate
limit, an overloaded queue, a timeout), a 502/503/504 from a balancer, and a connection that
failed or dropped. The wait is the server's ``Retry-After`` when it gives one, else an
exponential backoff with full jitter (AWS's "Exponential Backoff And Jitter"), within a bounded
number of attempts and a bounded total time.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import httpx2
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from threadwise.client.errors import SocketClosed, ThreadwiseError

T = TypeVar("T")

# A refresh of an expired token is its own remedy, not a retry with a wait.
_NOT_WAITED_FOR = frozenset({"TOKEN_EXPIRED"})
_NEVER_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, ConnectionRefusedError)


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` tries at most (1: never retry), all started within ``total_seconds``;
    backoff waits up to ``base_seconds * 2**retry``, capped at ``max_seconds``; a
    ``Retry-After`` longer than ``max_retry_after`` is not waited for (the error is raised)."""

    attempts: int = 4
    base_seconds: float = 0.5
    max_seconds: float = 20.0
    total_seconds: float = 120.0
    max_retry_after: float = 60.0
    random: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {self.attempts}")

    def backoff(self, retry: int) -> float:
        """Full jitter: uniform between 0 and the exponential ceiling of retry ``retry``."""
        return self.random() * min(self.max_seconds, self.base_seconds * 2.0**retry)

    def delay(self, error: BaseException, retry: int, *, resend_safe: bool = True) -> float | None:
        """Seconds to wait before retry number ``retry`` (from 0) after ``error``; None when
        it is not worth another try. ``resend_safe=False``: a connection that dropped after
        the request may have arrived is not retried, only one that was never made."""
        if isinstance(error, ThreadwiseError):
            if not error.retryable or error.code in _NOT_WAITED_FOR:
                return None
            if error.retry_after is not None:
                if error.retry_after > self.max_retry_after:
                    return None
                return error.retry_after
            return self.backoff(retry)
        if is_transport_error(error) and (resend_safe or isinstance(error, _NEVER_SENT)):
            return self.backoff(retry)
        return None


NEVER = RetryPolicy(attempts=1)


def is_transport_error(error: BaseException) -> bool:
    """A connection that could not be made, or dropped before the answer came."""
    return isinstance(
        error,
        httpx2.TransportError | SocketClosed | ConnectionClosed | InvalidHandshake | OSError,
    ) and not isinstance(error, ThreadwiseError | TimeoutError)


async def with_retries(
    policy: RetryPolicy,
    attempt: Callable[[], Awaitable[T]],
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    resend_safe: bool = True,
) -> T:
    """``attempt()``'s result, calling it again after each failure ``policy`` retries."""
    started = clock()
    retry = 0
    while True:
        try:
            return await attempt()
        except Exception as error:
            wait = policy.delay(error, retry, resend_safe=resend_safe)
            retry += 1
            if wait is None or retry >= policy.attempts:
                raise
            if clock() - started + wait > policy.total_seconds:
                raise
            await sleep(wait)
