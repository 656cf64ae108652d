"""A request's deadline and cancellation, checked by long-running work as it goes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


class Deadline:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._at = clock() + seconds
        self.cancelled = False

    def remaining(self) -> float:
        return self._at - self._clock()

    def cancel(self) -> None:
        """Ask the work to stop at its next check (its caller is gone)."""
        self.cancelled = True

    def stop_requested(self) -> bool:
        return self.cancelled or self.remaining() <= 0

    def check(self) -> None:
        """Raise the matching ``ServiceError`` if the work should stop now."""
        if self.cancelled:
            raise ServiceError(ErrorCode.REQUEST_CANCELLED, "The request was cancelled.")
        if self.remaining() <= 0:
            raise self.timeout_error()

    def timeout_error(self) -> ServiceError:
        """What a request that cannot finish within its deadline is answered."""
        return ServiceError(
            ErrorCode.REQUEST_TIMEOUT,
            f"The request did not finish within its {self.seconds:g} s deadline. Retry later, "
            "or send fewer or shorter conversations.",
        )


@dataclass(frozen=True)
class DeadlinePolicy:
    """A request's deadline: ``fixed`` seconds when configured, else grown from its size
    (``base`` plus ``per_thousand_characters``), at most ``ceiling``."""

    base: float
    per_thousand_characters: float
    ceiling: float
    fixed: float | None = None

    def seconds(self, characters: int) -> float:
        if self.fixed is not None:
            return self.fixed
        return min(self.ceiling, self.base + self.per_thousand_characters * characters / 1000)

    def start(self, characters: int) -> Deadline:
        return Deadline(self.seconds(characters))
