"""One record per superpower request: what it was, what became of it, how long it took.

When it ends it becomes one structured log line (logger ``threadwise.requests``) and the
request metrics. Transports fill in what they know: REST its HTTP status, the WebSocket
endpoint its correlation ID. Message content is never part of it.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from threadwise.errors import ServiceError
from threadwise.metrics import Metrics
from threadwise.protocol import ErrorCode, echoed_id

log = logging.getLogger("threadwise.requests")

# W3C Trace Context: version-traceid-parentid-flags.
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")


def trace_id_from(traceparent: str | None, given: str | None = None) -> str:
    """The trace ID of a ``traceparent`` header, else ``given``, else a new one."""
    if traceparent:
        match = _TRACEPARENT.match(traceparent.strip().lower())
        if match:
            return match.group(1)
    if given:
        return echoed_id(given)
    return uuid.uuid4().hex


@dataclass
class RequestRecord:
    transport: str  # "rest" or "websocket"
    correlation_id: str
    trace_id: str
    operation: str | None = None
    organization: str | None = None  # set once the caller is authorized for it
    engine: str | None = None
    code: str = "OK"
    status: int | None = None
    reason: str | None = None  # why a request was refused (queue_full, rate_limited, …)
    cache: str | None = None  # "hit" when answered from the result cache
    idempotency: str | None = None  # "replayed", "waited" or "new"
    redacted: int | None = None  # personal data values replaced by placeholders
    retry_after: float | None = None
    messages: int | None = None
    characters: int | None = None
    started: float = field(default_factory=time.monotonic)
    debug: dict[str, Any] = field(default_factory=dict)  # content; logged only when enabled
    _finished: bool = field(default=False, repr=False)

    @classmethod
    def start(
        cls,
        transport: str,
        correlation_id: str | None = None,
        trace_id: str | None = None,
        traceparent: str | None = None,
    ) -> RequestRecord:
        return cls(
            transport=transport,
            correlation_id=echoed_id(correlation_id or uuid.uuid4().hex),
            trace_id=trace_id_from(traceparent, trace_id),
        )

    def failed_with(self, error: ServiceError) -> None:
        self.code = error.code.value
        self.reason = error.reason or _REASONS.get(error.code)
        self.retry_after = error.retry_after

    def finish(self, metrics: Metrics | None, *, log_content: bool = False) -> None:
        """Log the request's line and count it; only the first call does anything."""
        if self._finished:
            return
        self._finished = True
        seconds = time.monotonic() - self.started
        fields: dict[str, Any] = {
            "event": "request",
            "transport": self.transport,
            "correlationId": self.correlation_id,
            "traceId": self.trace_id,
            "organization": self.organization,
            "operation": self.operation,
            "engine": self.engine,
            "code": self.code,
            "status": self.status,
            "durationMs": round(seconds * 1000, 1),
        }
        optional = {
            "reason": self.reason,
            "retryAfter": self.retry_after,
            "cache": self.cache,
            "idempotency": self.idempotency,
            "redacted": self.redacted,
            "messages": self.messages,
            "characters": self.characters,
        }
        fields.update({k: v for k, v in optional.items() if v is not None})
        if log_content and self.debug:
            fields["content"] = self.debug
        log.info(
            "%s %s %s", self.operation, self.code, fields["durationMs"], extra={"fields": fields}
        )
        if metrics is None or self.operation is None:
            return
        metrics.count_request(self.operation, self.code, self.organization, self.transport)
        if self.reason is not None:
            metrics.refusals.labels(self.operation, self.reason).inc()
        if self.code == "OK":
            metrics.latency.labels(self.operation, self.engine or "none").observe(seconds)


_REASONS = {
    ErrorCode.RATE_LIMITED: "rate_limited",
    ErrorCode.OVERLOADED: "queue_full",
    ErrorCode.IDEMPOTENCY_KEY_REUSED: "idempotency_key_reused",
}


def engine_kind(engine: str | None) -> str | None:
    """``llama.cpp`` of ``llama.cpp:qwen…``; an engine's kind, without its model."""
    if engine is None:
        return None
    return engine.split(":", 1)[0].split(" ", 1)[0]
