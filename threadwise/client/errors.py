"""The client's one error type, read from any answer the server gives: the superpower
envelope, the OAuth2 token endpoint's form, or an HTTP status with no envelope at all."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

# What a balancer or a restarting server answers without an envelope: worth another try.
TRANSIENT_STATUSES = frozenset({502, 503, 504})


class ThreadwiseError(Exception):
    """An error answer: its ``code``, ``message``, whether a retry may succeed
    (``retryable``), the seconds the server asked to wait first (``retry_after``), the HTTP
    ``status`` (``None`` for a WebSocket frame) and the whole answer (``reply``)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
        reply: Any = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.reply = reply

    @classmethod
    def from_reply(
        cls,
        reply: Any,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> ThreadwiseError:
        """The error ``reply`` (a decoded body or frame) carries, answered with ``status``."""
        retry_after = retry_after_seconds(headers or {})
        error = reply.get("error") if isinstance(reply, dict) else None
        if isinstance(error, dict):  # the superpower envelope
            if retry_after is None:  # a WebSocket frame has no headers; its body may say
                retry_after = _seconds(error.get("retryAfter"))
            return cls(
                str(error.get("code", "REMOTE_ERROR")),
                str(error.get("message", "")),
                retryable=bool(error.get("retryable")),
                retry_after=retry_after,
                status=status,
                reply=reply,
            )
        if isinstance(error, str):  # the token endpoint's OAuth2 form
            description = str(reply.get("error_description", ""))
            retryable = error == "temporarily_unavailable"
            return cls(
                error,
                description,
                retryable=retryable,
                retry_after=retry_after,
                status=status,
                reply=reply,
            )
        if status in TRANSIENT_STATUSES or status == 429:
            # No envelope: a balancer's page, or a server that is not up yet.
            return cls(
                "UNAVAILABLE" if status != 429 else "RATE_LIMITED",
                f"the server answered HTTP {status} without an error envelope",
                retryable=True,
                retry_after=retry_after,
                status=status,
                reply=reply,
            )
        return cls(
            "REMOTE_ERROR",
            f"expected an error envelope, got HTTP {status}: {reply!r}"[:500],
            status=status,
            reply=reply,
        )


class SocketClosed(ConnectionError):
    """The socket closed while a request waited for its reply."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"the WebSocket closed ({code}): {reason or 'no reason given'}")
        self.code = code
        self.reason = reason


def _seconds(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds (RFC 9110: a number of seconds or an HTTP date)."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
