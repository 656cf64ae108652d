"""WebSocket frames: the requests and cancels the official client sends (docs/protocol/client.md
§3; docs/protocol/interface.md §9), and the replies it reads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from threadwise.protocol.fields import MAX_ECHOED_ID_LENGTH, MAX_ID_LENGTH, echoed_id
from threadwise.protocol.jobs import Job
from threadwise.protocol.request import MessageBody
from threadwise.protocol.response import Envelope


class SocketRequestHeaders(BaseModel):
    """The headers of a request frame. The official client sends all of these but
    ``timestamp``, ``tenantId`` and ``networkLatencyMs``; only ``correlationId`` and ``action``
    are read (``traceId`` and ``idempotencyKey`` are echoed). IDs are opaque strings."""

    model_config = ConfigDict(extra="allow", frozen=True)

    correlationId: str | None = None
    action: str | None = None
    schemaRef: str | None = None
    sdkVersion: str | None = None
    identifier: str | None = None
    traceId: str | None = None
    idempotencyKey: str | None = None
    timestamp: str | None = None
    issuedAt: str | None = None
    tenantId: str | None = None
    networkLatencyMs: float | str | None = None


class SocketMessage(BaseModel):
    """A request as the official client frames it: the superpower in ``headers.action``, the
    body in ``payload`` (which may also carry a copy of the caller's ``headers``)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    action: Literal["message"]
    headers: SocketRequestHeaders
    payload: MessageBody


class SocketPlainMessage(MessageBody):
    """A request without the SDK's envelope: the body itself, naming its superpower in
    ``headers.action`` or ``actionType``, its correlation id in ``headers.correlationId`` or
    ``correlationId`` (else ``request.requestId``)."""

    headers: SocketRequestHeaders = SocketRequestHeaders()
    actionType: str | None = None
    correlationId: str | None = None


class SocketJobWebhook(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    url: Annotated[str, Field(min_length=1, max_length=2048)] = Field(
        description="Where to POST the job's end (as `webhook.url` of `POST /jobs/*`)."
    )


class SocketJobPayload(MessageBody):
    """A job's body: the body of a request, and optionally the webhook to call when it ends."""

    webhook: SocketJobWebhook | None = None


class SocketJob(BaseModel):
    """A request submitted as an asynchronous job (an extension, as ``POST /jobs/*``): the
    superpower in ``headers.action``, an optional ``headers.idempotencyKey``. Answered at once
    with the job (``accepted``), then, if the socket is still open, when the job ends."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    action: Literal["job"]
    headers: SocketRequestHeaders
    payload: SocketJobPayload


class SocketCancelHeaders(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    correlationId: Annotated[str, Field(min_length=1, max_length=MAX_ECHOED_ID_LENGTH)]


class SocketCancel(BaseModel):
    """Stop the requests in flight on this socket with this correlation id (an extension)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    action: Literal["cancel"]
    headers: SocketCancelHeaders


class SocketReplyHeaders(BaseModel):
    correlationId: str | None = None
    action: str
    schemaRef: Literal["optave.response.v3", "optave.error.v3"]
    identifier: Literal["message"] = "message"
    issuedAt: str
    traceId: str | None = None
    idempotencyKey: str | None = None


class SocketJobReply(BaseModel):
    """A job frame's replies: ``accepted`` with the job as submitted, then, when it ends, its
    final state with the job (and its result), as ``GET /jobs/{jobId}`` shows it."""

    action: Literal["job"] = "job"
    actionType: Literal["summarize", "translate"]
    state: Literal["accepted", "completed", "failed", "cancelled"]
    job: Job
    headers: SocketReplyHeaders
    correlationId: str | None = None


class SocketReply(Envelope):
    """A WebSocket reply: the flat envelope, with the request's correlation id (echoed as sent)
    in ``headers`` and at the top level, where the official client looks for it. Never a
    ``payload`` key: the client does not look inside one."""

    headers: SocketReplyHeaders
    # Absent only when the frame answered had none that could be read (not JSON, say).
    correlationId: str | None = None


def socket_reply(
    envelope: Envelope,
    correlation_id: str | None,
    action: str,
    trace_id: str | None = None,
    idempotency_key: str | None = None,
) -> SocketReply:
    """``envelope`` as a WebSocket reply to the request with ``correlation_id``."""
    correlation_id = echoed_id(correlation_id)
    schema: Literal["optave.response.v3", "optave.error.v3"] = (
        "optave.error.v3" if envelope.state == "error" else "optave.response.v3"
    )
    headers = _reply_headers(schema, correlation_id, action, trace_id, idempotency_key)
    fields = {name: getattr(envelope, name) for name in Envelope.model_fields}
    return SocketReply(**fields, headers=headers, correlationId=correlation_id)


def socket_job_reply(
    job: dict[str, Any],
    state: str,
    correlation_id: str | None,
    action: str,
    trace_id: str | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """The job resource ``job`` (as ``GET /jobs/{jobId}`` answers it, every key kept) as a
    ``SocketJobReply`` to the job frame with ``correlation_id``."""
    correlation_id = echoed_id(correlation_id)
    headers = _reply_headers(
        "optave.response.v3", correlation_id, action, trace_id, idempotency_key
    )
    reply = {
        "action": "job",
        "actionType": action,
        "state": state,
        "job": job,
        "headers": headers.model_dump(mode="json", exclude_none=True),
        "correlationId": correlation_id,
    }
    return {key: value for key, value in reply.items() if value is not None}


def _reply_headers(
    schema: Literal["optave.response.v3", "optave.error.v3"],
    correlation_id: str | None,
    action: str,
    trace_id: str | None,
    idempotency_key: str | None,
) -> SocketReplyHeaders:
    issued_at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return SocketReplyHeaders(
        correlationId=correlation_id,
        action=action,
        schemaRef=schema,
        issuedAt=issued_at,
        traceId=echoed_id(trace_id),
        # Keys of up to MAX_ID_LENGTH characters are valid: echoed whole.
        idempotencyKey=echoed_id(idempotency_key, MAX_ID_LENGTH),
    )
