"""The one error type: every failure the service reports carries an ``ErrorCode``."""

from __future__ import annotations

from threadwise.protocol import ErrorCode


class ServiceError(Exception):
    """A failure to report to the caller: a code, a sentence saying what to fix, and a hint."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        retry_after: float | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after
        # Why a request was refused before any work (queue_full, draining), for logs and metrics.
        self.reason = reason

    def __repr__(self) -> str:
        return f"ServiceError({self.code.value}, {self.message!r})"
