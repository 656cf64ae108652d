"""A request's deadline and cancellation, checked by long-running work as it goes."""

from __future__ import annotations

import time

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._at = time.monotonic() + seconds
        self.cancelled = False

    def remaining(self) -> float:
        return self._at - time.monotonic()

    def stop_requested(self) -> bool:
        return self.cancelled or self.remaining() <= 0

    def check(self) -> None:
        """Raise the matching ``ServiceError`` if the work should stop now."""
        if self.cancelled:
            raise ServiceError(ErrorCode.REQUEST_CANCELLED, "The request was cancelled.")
        if self.remaining() <= 0:
            raise ServiceError(
                ErrorCode.REQUEST_TIMEOUT,
                f"The request did not finish within its {self.seconds:g} s deadline. Retry later, "
                "or send fewer or shorter conversations.",
            )
