"""The one error type: a code, what to fix, and the hints that go with it."""

from __future__ import annotations

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


def test_the_message_is_the_exceptions_text() -> None:
    error = ServiceError(ErrorCode.PROCESSING_FAILED, "Retry the request.")
    assert str(error) == error.message == "Retry the request."
    assert error.code is ErrorCode.PROCESSING_FAILED
    assert error.retry_after is None and error.reason is None


def test_the_hints_are_kept() -> None:
    error = ServiceError(ErrorCode.OVERLOADED, "Busy.", retry_after=2.5, reason="queue_full")
    assert error.retry_after == 2.5 and error.reason == "queue_full"


def test_repr_names_the_code_and_the_message() -> None:
    error = ServiceError(ErrorCode.OVERLOADED, "Busy.")
    assert repr(error) == f"ServiceError({ErrorCode.OVERLOADED.value}, 'Busy.')"
