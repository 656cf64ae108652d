"""The WebSocket endpoint, at ``/`` and ``/ws``: both superpowers, framed as the official client
frames them (``wire-protocol.md`` §2 to §6, ``decisions.md`` §9).

Thin, like the REST routes: the gate authenticates the upgrade (401 before the socket opens)
and, again, every message; each request is parsed and handed to the same superpowers. Every
request runs as a task of its own, so many can be in flight on one socket; one writer per
socket sends the replies in the order they are ready. A bad frame is answered with an error
frame and the socket stays open. Replies wait to be sent in a bounded outbox: a client that
does not read them is not read either, and then closed (1008).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, cast

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketState

from threadwise.api.errors import error_response
from threadwise.errors import ServiceError
from threadwise.payload import (
    charged_characters,
    check_limits,
    decode_json,
    json_object,
    validate,
)
from threadwise.protocol import (
    MAX_ECHOED_ID_LENGTH,
    Envelope,
    ErrorCode,
    MessageBody,
    Request,
    ResponseItem,
    SocketCancel,
    SocketMessage,
    SocketPlainMessage,
    completed_envelope,
    echoed_id,
    error_envelope,
    results_envelope,
    socket_reply,
)
from threadwise.services import Services
from threadwise.serving.idempotency import check_key
from threadwise.serving.operations import Operation
from threadwise.serving.records import RequestRecord

log = logging.getLogger("threadwise.websocket")

SUBPROTOCOL = "optave-v1"
SUPERPOWERS = ("summarize", "translate")
# What an error frame names as its superpower when the frame named none it could read.
UNKNOWN_SUPERPOWER = "superpower"
# RFC 6455: a close frame's reason is at most 123 bytes of UTF-8.
_MAX_REASON_BYTES = 123

router = APIRouter()


# --- the upgrade -------------------------------------------------------------------------------


def upgrade_credentials(
    offered: list[str], query_token: str | None
) -> tuple[str | None, str | None]:
    """The token of an upgrade request, and the subprotocol to answer with.

    ``Sec-WebSocket-Protocol: optave-v1,<token>`` (the official client's default) is answered
    with exactly ``optave-v1``, never the token; ``?Authorization=<token>`` (its ``query``
    transport, which offers no subprotocol) with none, as the client aborts on any other answer.
    """
    subprotocol = SUBPROTOCOL if SUBPROTOCOL in offered else None
    if subprotocol is not None:
        for entry in offered:
            if entry != SUBPROTOCOL and entry.strip():
                return entry.strip(), subprotocol
    if query_token is not None and query_token.strip():
        token = query_token.strip()
        scheme, _, rest = token.partition(" ")
        return (rest.strip() if scheme.lower() == "bearer" else token) or None, subprotocol
    return None, subprotocol


@router.websocket("/")
@router.websocket("/ws")
async def superpower_socket(websocket: WebSocket) -> None:
    """Summarize and translate over one socket; see ``docs/asyncapi.yaml``."""
    services: Services = websocket.app.state.services
    sockets: SocketRegistry = websocket.app.state.sockets
    token, subprotocol = upgrade_credentials(
        websocket.scope.get("subprotocols", []), websocket.query_params.get("Authorization")
    )
    host = websocket.headers.get("host")
    try:
        if sockets.closing:
            raise ServiceError(
                ErrorCode.OVERLOADED,
                "The server is shutting down; connect again in a few seconds.",
                retry_after=5,
            )
        if token is None:
            raise ServiceError(
                ErrorCode.MISSING_TOKEN,
                f"The WebSocket upgrade needs an access token: offer the subprotocols "
                f"'{SUBPROTOCOL},<token>' (Sec-WebSocket-Protocol), or add ?Authorization=<token> "
                "to the URL. Get a token from POST /auth/oauth2/token.",
            )
        await services.auth.gate.authenticate(token, host)
    except ServiceError as refusal:
        await _refuse(websocket, refusal)
        return
    await websocket.accept(subprotocol=subprotocol)
    session = SocketSession(websocket, services, token, host)
    with sockets.registered(session):
        await session.serve()


async def _refuse(websocket: WebSocket, refusal: ServiceError) -> None:
    """Answer the upgrade with the error's HTTP status and JSON envelope (401 for a missing or
    bad token), before the socket opens; a server without the ASGI denial-response extension
    can only close it (uvicorn then answers 403)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(error_response(UNKNOWN_SUPERPOWER, refusal))
    else:
        await websocket.close(1008, close_reason(f"{refusal.code.value}: {refusal.message}"))


def close_reason(text: str) -> str:
    """``text`` cut to what fits a close frame."""
    encoded = text.encode()
    if len(encoded) <= _MAX_REASON_BYTES:
        return text
    return encoded[: _MAX_REASON_BYTES - 3].decode(errors="ignore") + "..."


# --- one socket ----------------------------------------------------------------------------------


@dataclass(eq=False)
class SocketRequest:
    """A request in flight: what its replies echo, and whether the client cancelled it."""

    correlation_id: str
    action: str  # the superpower, as headers.action (or actionType) named it
    trace_id: str | None
    idempotency_key: str | None
    task: asyncio.Task[None] | None = None
    request: Request | None = None  # once the body is read: its requestId and variant echo
    cancelled: bool = False
    finished: bool = False


@dataclass(frozen=True)
class _FrameIds:
    """What a reply echoes, read from a frame before it is validated."""

    correlation_id: str | None
    action: str
    trace_id: str | None = None
    idempotency_key: str | None = None


class SocketSession:
    """One open socket: reads frames, runs their requests, sends the replies."""

    def __init__(
        self, websocket: WebSocket, services: Services, token: str, host: str | None
    ) -> None:
        self.websocket = websocket
        self.services = services
        self.token = token
        self.host = host
        self.max_frame_bytes = services.settings.max_body_bytes
        self.max_in_flight = services.settings.websocket_max_in_flight
        self.max_unsent = services.settings.websocket_max_unsent_replies
        self.read_timeout = services.settings.websocket_ping_timeout_seconds
        self.in_flight: set[SocketRequest] = set()
        self.draining = False
        # Bounded by the reader, which reads no frame while it is full: it then holds at
        # most max_unsent replies, and the final replies of the requests in flight.
        self._outbox: asyncio.Queue[str] = asyncio.Queue()
        self._sent = asyncio.Event()  # the writer took a reply: there may be room
        self._closed = False

    async def serve(self) -> None:
        writer = asyncio.create_task(self._write())
        try:
            while True:
                if not await self._room_for_replies():
                    await self.close(
                        1008, f"replies not read for {self.read_timeout:g} s; read them"
                    )
                    break
                message = await self.websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text: str | None = message.get("text")
                if text is None:
                    # A binary frame: the official client never sends one; read it as UTF-8.
                    data: bytes = message.get("bytes") or b""
                    size = len(data)
                    text = data.decode("utf-8", errors="replace")
                elif text.isascii():
                    size = len(text)
                else:
                    # "surrogatepass": a lone surrogate (only an in-process client can send
                    # one; a wire frame is UTF-8) is read as U+FFFD, as the JSON decoder does.
                    data = text.encode("utf-8", "surrogatepass")
                    size = len(data)
                    text = data.decode("utf-8", errors="replace")
                if size > self.max_frame_bytes:
                    # uvicorn refuses such a frame itself (ws_max_size); other servers may not.
                    limit = self.max_frame_bytes // 1024
                    await self.close(1009, f"frame of {size} bytes is over the {limit} KiB limit")
                    break
                self.on_frame(text)
        finally:
            self._closed = True
            # A closed socket cancels its requests: no work is done for nobody.
            tasks = [r.task for r in self.in_flight if r.task is not None]
            for task in tasks:
                task.cancel()
            writer.cancel()
            await asyncio.gather(*tasks, writer, return_exceptions=True)

    # --- frames in ---------------------------------------------------------------------------

    def on_frame(self, text: str) -> None:
        """Start the frame's request, or answer it at once (a bad frame, a cancel, too many).
        Whatever the frame holds, it is answered and the socket stays open."""
        ids = _FrameIds(None, UNKNOWN_SUPERPOWER)
        try:
            data = read_frame(text)
            ids = _frame_ids(data)
            self._start(data, ids)
        except ServiceError as exc:
            self._error(ids, exc.code, exc.message)
        except Exception:
            log.exception("unexpected error reading a websocket frame")
            self._error(
                ids,
                ErrorCode.PROCESSING_FAILED,
                "The frame could not be read inside the service; it has been logged. Send it "
                "again; if it keeps failing, report its correlation id.",
            )

    def _start(self, data: dict[str, Any], ids: _FrameIds) -> None:
        kind = data.get("action")
        if kind == "cancel":
            self._cancel(data)
            return
        correlation_id = check_request_frame(kind, ids)
        if self.draining:
            raise ServiceError(
                ErrorCode.OVERLOADED,
                "The server is shutting down and takes no new requests; send it again on a new "
                "connection in a few seconds.",
            )
        if len(self.in_flight) >= self.max_in_flight:
            raise ServiceError(
                ErrorCode.OVERLOADED,
                f"This socket already has {len(self.in_flight)} requests in flight, the most "
                "allowed. Wait for a reply before sending more, or open another connection.",
            )
        request = SocketRequest(correlation_id, ids.action, ids.trace_id, ids.idempotency_key)
        request.task = asyncio.create_task(self._answer(request, data, sdk=kind == "message"))
        request.task.add_done_callback(lambda _: self._settled(request))
        self.in_flight.add(request)

    def _cancel(self, data: dict[str, Any]) -> None:
        try:
            cancel = validate(SocketCancel, data)
        except ServiceError as exc:
            raise ServiceError(
                exc.code,
                "A cancel frame needs headers.correlationId, a string of 1 to "
                f"{MAX_ECHOED_ID_LENGTH} characters. {exc.message}",
            ) from None
        # A cancel for a request already answered (or never sent) has nothing to stop.
        for request in self.in_flight:
            if request.correlation_id == cancel.headers.correlationId and request.task:
                request.cancelled = True
                request.task.cancel()

    # --- a request -------------------------------------------------------------------------

    async def _answer(self, request: SocketRequest, data: dict[str, Any], *, sdk: bool) -> None:
        # One log line and the request metrics, as for a REST call.
        record = RequestRecord.start("websocket", request.correlation_id, request.trace_id)
        record.operation = request.action
        try:
            gate = self.services.auth.gate
            # The checks of a REST call, per message: the token may have expired or its
            # client been revoked since the upgrade.
            principal = await gate.authenticate(self.token, self.host)
            body = (
                validate(SocketMessage, data).payload if sdk else validate(SocketPlainMessage, data)
            )
            request.request = body.request
            check_limits(body, self.services.limits)
            organization = body.request.context.organizationId
            gate.authorize(principal, organization)
            record.organization = organization
            await gate.admit(principal, organization, charged_characters(body, request.action))
            envelope = await self._run(request, body, principal.claims.tenant, record)
        except ServiceError as exc:
            if exc.code is ErrorCode.PROCESSING_FAILED:
                log.warning("websocket %s failed: %s", request.action, exc.message)
            record.failed_with(exc)
            envelope = error_envelope(request.action, exc.code, exc.message, request.request)
        except asyncio.CancelledError:
            record.failed_with(
                ServiceError(ErrorCode.REQUEST_CANCELLED, "cancelled", reason="client_cancel")
            )
            record.finish(self.services.metrics)
            raise
        except Exception:
            log.exception("unexpected error answering a websocket %s", request.action)
            error = ServiceError(
                ErrorCode.PROCESSING_FAILED,
                "The request failed inside the service; it has been logged. Retry it; if it "
                "keeps failing, report the request ID.",
            )
            record.failed_with(error)
            envelope = error_envelope(request.action, error.code, error.message, request.request)
        request.finished = True  # before the answer: a late partial must not follow it
        self._send(request, envelope)
        record.finish(self.services.metrics, log_content=self.services.settings.log_content)

    def _settled(self, request: SocketRequest) -> None:
        """A request's task is done: answered, or cancelled (perhaps before it even started,
        when its cancel came in the same read as the request itself)."""
        request.finished = True
        self.in_flight.discard(request)
        assert request.task is not None
        if request.task.cancelled() and request.cancelled and not self._closed:
            self._send(
                request,
                error_envelope(
                    request.action,
                    ErrorCode.REQUEST_CANCELLED,
                    f"The request {request.correlation_id!r} was cancelled, as asked; it was "
                    "stopped before it finished.",
                    request.request,
                ),
            )

    async def _run(
        self, request: SocketRequest, body: MessageBody, tenant: str, record: RequestRecord
    ) -> Envelope:
        """Call the superpower through ``Operations`` (shutdown, idempotency key, result
        cache); with ``disableStream: false``, ``started`` frames carry the summary so far
        while the model writes it."""
        streaming = request.action == "summarize" and body.request.settings.disableStream is False

        def partial(text: str) -> None:
            # Not after the answer (a late partial of a cancelled request), nor into a full
            # outbox: each partial holds the whole summary so far, the next one or the
            # answer makes up for one left out.
            if not request.finished and not self._full():
                item = ResponseItem(content=text, type="summary")
                started = completed_envelope("summarize", [item], body.request, "started")
                self._send(request, started)

        key = request.idempotency_key
        results = await self.services.operations.run(
            cast(Operation, request.action),
            body,
            tenant=tenant,
            record=record,
            idempotency_key=check_key(key, "headers.idempotencyKey") if key else None,
            on_partial=partial if streaming else None,
        )
        return results_envelope(request.action, results, body.request)

    # --- frames out ------------------------------------------------------------------------

    def _error(self, ids: _FrameIds, code: ErrorCode, message: str) -> None:
        self._send(ids, error_envelope(ids.action, code, message))

    def _send(self, to: SocketRequest | _FrameIds, envelope: Envelope) -> None:
        reply = socket_reply(
            envelope, to.correlation_id, to.action, to.trace_id, to.idempotency_key
        ).to_wire()
        # Frames are decoded without lone surrogates (decode_json): every reply is UTF-8.
        self._outbox.put_nowait(json.dumps(reply, ensure_ascii=False, separators=(",", ":")))

    def _full(self) -> bool:
        return self._outbox.qsize() >= self.max_unsent

    async def _room_for_replies(self) -> bool:
        """Whether the outbox has room for the replies of another frame, or the client reads
        enough of its replies to make some within the read timeout."""
        while self._full():
            self._sent.clear()
            try:
                await asyncio.wait_for(self._sent.wait(), self.read_timeout)
            except TimeoutError:
                log.info("closing a socket whose client read none of %d replies", self.max_unsent)
                return False
        return True

    async def _write(self) -> None:
        """The socket's only sender: frames go out whole, in the order they were ready."""
        while True:
            text = await self._outbox.get()
            self._sent.set()
            try:
                if self.websocket.application_state is WebSocketState.CONNECTED:
                    await self.websocket.send_text(text)
            except Exception:  # the client went away; the reader sees the disconnect
                log.debug("a reply could not be sent: the socket is closed", exc_info=True)
            finally:
                self._outbox.task_done()

    # --- closing ---------------------------------------------------------------------------

    async def drain(self, timeout: float) -> None:
        """Take no new requests; wait (up to ``timeout``) until those in flight are answered
        and their replies sent."""
        self.draining = True
        tasks = [r.task for r in self.in_flight if r.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
        with suppress(TimeoutError):
            await asyncio.wait_for(self._outbox.join(), timeout=max(0.1, timeout))

    async def close(self, code: int, reason: str) -> None:
        if self.websocket.application_state is WebSocketState.CONNECTED:
            try:
                await self.websocket.close(code, close_reason(reason))
            except Exception:  # already closing from the other side
                log.debug("close %d not sent", code, exc_info=True)


FRAME_EXAMPLE = (
    '{"action": "message", "headers": {"correlationId": …, "action": "summarize"}, '
    '"payload": {"session": …, "request": …}}'
)


def read_frame(text: str) -> dict[str, Any]:
    """A frame's JSON object, or the ``ServiceError`` to answer it with."""
    data = decode_json(text, "The frame", f"Send a JSON object such as {FRAME_EXAMPLE}.")
    return json_object(data, "A frame must be a JSON object with 'action', 'headers' and 'payload'")


def check_request_frame(kind: Any, ids: _FrameIds) -> str:
    """A request frame's correlation id; refused if it has none usable, or names no known
    superpower."""
    if kind not in (None, "message"):
        raise ServiceError(
            ErrorCode.UNKNOWN_ACTION,
            f"Unknown frame action {_shown(kind)}: send 'message' (a superpower request) or "
            "'cancel'.",
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
        where = "headers.action" if kind == "message" else "headers.action or actionType"
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


def _frame_ids(data: dict[str, Any]) -> _FrameIds:
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
    return _FrameIds(
        correlation_id,
        action.lower() if action.lower() in SUPERPOWERS else echoed_id(action),
        trace_id if isinstance(trace_id, str) else None,
        key if isinstance(key, str) else None,
    )


def _shown(value: Any) -> str:
    return repr(value)[:80]


# --- all sockets -----------------------------------------------------------------------------


@dataclass
class SocketRegistry:
    """The open sockets, so that shutdown can let their requests finish and close them."""

    sessions: set[SocketSession] = field(default_factory=set)
    closing: bool = False

    @contextmanager
    def registered(self, session: SocketSession) -> Iterator[None]:
        self.sessions.add(session)
        try:
            yield
        finally:
            self.sessions.discard(session)

    async def close_all(self, timeout: float) -> None:
        """Refuse new sockets and requests, let those in flight be answered (up to
        ``timeout``), then close every socket with 1001, saying why."""
        self.closing = True
        sessions = list(self.sessions)
        if sessions:
            await asyncio.gather(*(s.drain(timeout) for s in sessions))
            await asyncio.gather(
                *(s.close(1001, "server shutting down; connect again") for s in sessions)
            )
