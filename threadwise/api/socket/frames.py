"""Frames in and out: a frame's text and JSON, what its reply echoes, and the reply encoded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.types import Message

from threadwise.errors import ServiceError
from threadwise.payload import decode_json, json_object
from threadwise.protocol import (
    MAX_ECHOED_ID_LENGTH,
    Envelope,
    ErrorCode,
    echoed_id,
    socket_job_reply,
    socket_reply,
)

SUPERPOWERS = ("summarize", "translate")
# What an error frame names as its superpower when the frame named none it could read.
UNKNOWN_SUPERPOWER = "superpower"
# RFC 6455: a close frame's reason is at most 123 bytes of UTF-8.
_MAX_REASON_BYTES = 123

FRAME_EXAMPLE = (
    '{"action": "message", "headers": {"correlationId": …, "action": "summarize"}, '
    '"payload": {"session": …, "request": …}}'
)


class ReplyTo(Protocol):
    """What a reply echoes of the frame it answers."""

    @property
    def correlation_id(self) -> str | None: ...

    @property
    def action(self) -> str: ...

    @property
    def trace_id(self) -> str | None: ...

    @property
    def idempotency_key(self) -> str | None: ...


@dataclass(frozen=True)
class FrameIds:
    """What a reply echoes, read from a frame before it is validated."""

    correlation_id: str | None
    action: str
    trace_id: str | None = None
    idempotency_key: str | None = None


def frame_text(message: Message) -> tuple[str, int]:
    """A received frame's text, and its size in bytes (what the frame limit counts)."""
    text: str | None = message.get("text")
    if text is None:
        # A binary frame: the official client never sends one; read it as UTF-8.
        data: bytes = message.get("bytes") or b""
        return data.decode("utf-8", errors="replace"), len(data)
    if text.isascii():
        return text, len(text)
    # "surrogatepass": a lone surrogate (only an in-process client can send one; a wire
    # frame is UTF-8) is read as U+FFFD, as the JSON decoder does.
    data = text.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", errors="replace"), len(data)


def read_frame(text: str) -> dict[str, Any]:
    """A frame's JSON object, or the ``ServiceError`` to answer it with."""
    data = decode_json(text, "The frame", f"Send a JSON object such as {FRAME_EXAMPLE}.")
    return json_object(data, "A frame must be a JSON object with 'action', 'headers' and 'payload'")


def check_request_frame(kind: Any, ids: FrameIds) -> str:
    """A request frame's correlation id (``message``, ``job`` or the plain body); refused if
    it has none usable, or names no known superpower."""
    if kind not in (None, "message", "job"):
        raise ServiceError(
            ErrorCode.UNKNOWN_ACTION,
            f"Unknown frame action {_shown(kind)}: send 'message' (a superpower request), "
            "'job' (one as an asynchronous job) or 'cancel'.",
        )
    if ids.correlation_id is None:
        raise ServiceError(
            ErrorCode.REQUIRED_FIELDS_MISSING,
            "The frame has no correlation id: set headers.correlationId to a non-empty "
            "string, which the reply echoes.",
        )
    if len(ids.correlation_id) > MAX_ECHOED_ID_LENGTH:
        # The reply could echo only part of it, and the client would not know it for its own.
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"The correlation id has {len(ids.correlation_id)} characters; at most "
            f"{MAX_ECHOED_ID_LENGTH} are accepted (a UUID has 36). Send a shorter one.",
        )
    if ids.action not in SUPERPOWERS:
        where = "headers.action" if kind else "headers.action or actionType"
        if ids.action == UNKNOWN_SUPERPOWER:
            raise ServiceError(
                ErrorCode.REQUIRED_FIELDS_MISSING,
                f"The frame names no superpower: set {where} to 'summarize' or 'translate'.",
            )
        raise ServiceError(
            ErrorCode.UNKNOWN_ACTION,
            f"There is no superpower {_shown(ids.action)} here; set {where} to "
            "'summarize' or 'translate'.",
        )
    return ids.correlation_id


def frame_ids(data: dict[str, Any]) -> FrameIds:
    """Correlation id, superpower and trace ids, from wherever the frame has them."""
    headers = data.get("headers")
    headers = headers if isinstance(headers, dict) else {}
    payload = data.get("payload")
    body = payload if isinstance(payload, dict) else data
    request = body.get("request")
    request_id = request.get("requestId") if isinstance(request, dict) else None
    # The official client's own order: headers.correlationId, else request.requestId.
    correlation_id = next(
        (
            value
            for value in (headers.get("correlationId"), data.get("correlationId"), request_id)
            if isinstance(value, str) and value
        ),
        None,
    )
    action = next(
        (
            value
            for value in (headers.get("action"), data.get("actionType"))
            if isinstance(value, str) and value
        ),
        UNKNOWN_SUPERPOWER,
    )
    trace_id, key = headers.get("traceId"), headers.get("idempotencyKey")
    return FrameIds(
        correlation_id,
        action.lower() if action.lower() in SUPERPOWERS else echoed_id(action),
        trace_id if isinstance(trace_id, str) else None,
        key if isinstance(key, str) else None,
    )


def encode_reply(envelope: Envelope, to: ReplyTo) -> str:
    """``envelope`` as the reply frame to ``to``."""
    reply = socket_reply(
        envelope, to.correlation_id, to.action, to.trace_id, to.idempotency_key
    ).to_wire()
    # Frames are decoded without lone surrogates (decode_json): every reply is UTF-8.
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":"))


def encode_job_reply(job: dict[str, Any], state: str, to: ReplyTo) -> str:
    """The job resource ``job`` as a reply to the job frame ``to``, in ``state``."""
    reply = socket_job_reply(
        job, state, to.correlation_id, to.action, to.trace_id, to.idempotency_key
    )
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":"))


def close_reason(text: str) -> str:
    """``text`` cut to what fits a close frame."""
    encoded = text.encode()
    if len(encoded) <= _MAX_REASON_BYTES:
        return text
    return encoded[: _MAX_REASON_BYTES - 3].decode(errors="ignore") + "..."


def _shown(value: Any) -> str:
    return repr(value)[:80]
