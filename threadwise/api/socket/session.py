"""One open socket: reads its frames, lets each request in as a REST call is let in, runs it
as a task of its own (or submits it as a job, whose end is pushed while the socket is open),
and sends the replies in the order they are ready."""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, cast

from fastapi import WebSocket
from starlette.websockets import WebSocketState

from threadwise.api.socket.frames import (
    UNKNOWN_SUPERPOWER,
    FrameIds,
    ReplyTo,
    check_request_frame,
    close_reason,
    encode_job_reply,
    encode_reply,
    frame_ids,
    frame_text,
    read_frame,
)
from threadwise.auth.gate import Principal
from threadwise.errors import ServiceError
from threadwise.jobs.resource import job_resource
from threadwise.jobs.store import JobRecord
from threadwise.payload import validate
from threadwise.protocol import (
    MAX_ECHOED_ID_LENGTH,
    Envelope,
    ErrorCode,
    MessageBody,
    Request,
    ResponseItem,
    SocketCancel,
    SocketJob,
    SocketMessage,
    SocketPlainMessage,
    completed_envelope,
    error_envelope,
    results_envelope,
)
from threadwise.serving.admission import Admitted
from threadwise.serving.context import ServingContext
from threadwise.serving.idempotency import check_key
from threadwise.serving.job_watch import Watch
from threadwise.serving.operations import Operation
from threadwise.serving.records import RequestRecord

log = logging.getLogger("threadwise.websocket")


@dataclass(eq=False)
class SocketRequest:
    """A request in flight: what its replies echo, and whether the client cancelled it."""

    correlation_id: str
    action: Operation  # the superpower, as headers.action (or actionType) named it
    trace_id: str | None
    idempotency_key: str | None
    task: asyncio.Task[None] | None = None
    request: Request | None = None  # once the body is read: its requestId and variant echo
    cancelled: bool = False
    finished: bool = False
    # A job frame: submitted, not run here; its task is not cancelled (the submission is
    # short, and cut short it could leave a job stored but never queued).
    job: bool = False


class SocketSession:
    """One open socket: reads frames, runs their requests, sends the replies."""

    def __init__(
        self, websocket: WebSocket, serving: ServingContext, token: str, host: str | None
    ) -> None:
        self.websocket = websocket
        self.serving = serving
        self.token = token
        self.host = host
        self.max_frame_bytes = serving.settings.max_body_bytes
        self.max_in_flight = serving.settings.websocket_max_in_flight
        self.max_unsent = serving.settings.websocket_max_unsent_replies
        self.read_timeout = serving.settings.websocket_ping_timeout_seconds
        self.in_flight: set[SocketRequest] = set()
        self.draining = False
        # Bounded by the reader, which reads no frame while it is full: it then holds at
        # most max_unsent replies, and the final replies of the requests in flight.
        self._outbox: asyncio.Queue[str] = asyncio.Queue()
        self._sent = asyncio.Event()  # the writer took a reply: there may be room
        self._closed = False
        self._watches: set[Watch] = set()  # the jobs submitted here, until they end

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
                text, size = frame_text(message)
                if size > self.max_frame_bytes:
                    # uvicorn refuses such a frame itself (ws_max_size); other servers may not.
                    limit = self.max_frame_bytes // 1024
                    await self.close(1009, f"frame of {size} bytes is over the {limit} KiB limit")
                    break
                self.on_frame(text)
        finally:
            self._closed = True
            # A closed socket cancels its requests: no work is done for nobody. Its jobs go
            # on (GET /jobs/{jobId}, their webhook), unwatched.
            for watch in self._watches:
                watch.stop()
            tasks = [r.task for r in self.in_flight if r.task is not None]
            for request in self.in_flight:
                if request.task is not None and not request.job:
                    request.task.cancel()
            writer.cancel()
            await asyncio.gather(*tasks, writer, return_exceptions=True)

    # --- frames in ---------------------------------------------------------------------------

    def on_frame(self, text: str) -> None:
        """Start the frame's request, or answer it at once (a bad frame, a cancel, too many).
        Whatever the frame holds, it is answered and the socket stays open."""
        ids = FrameIds(None, UNKNOWN_SUPERPOWER)
        try:
            data = read_frame(text)
            ids = frame_ids(data)
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

    def _start(self, data: dict[str, Any], ids: FrameIds) -> None:
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
        operation = cast(Operation, ids.action)  # check_request_frame let only those through
        request = SocketRequest(
            correlation_id, operation, ids.trace_id, ids.idempotency_key, job=kind == "job"
        )
        request.task = asyncio.create_task(self._answer(request, data, kind))
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
        # A cancel for a request already answered (or never sent) has nothing to stop; nor
        # has one for a job (DELETE /jobs/{jobId} cancels it).
        for request in self.in_flight:
            if (
                request.correlation_id == cancel.headers.correlationId
                and request.task
                and not request.job
            ):
                request.cancelled = True
                request.task.cancel()

    # --- a request -------------------------------------------------------------------------

    async def _answer(self, request: SocketRequest, data: dict[str, Any], kind: Any) -> None:
        # One log line and the request metrics, as for a REST call.
        record = RequestRecord.start("websocket", request.correlation_id, request.trace_id)
        record.operation = request.action
        webhook: str | None = None
        submitted: JobRecord | None = None

        async def read_body(_caller: Principal) -> MessageBody:
            nonlocal webhook
            body: MessageBody
            if kind == "job":
                payload = validate(SocketJob, data).payload
                webhook = payload.webhook.url.strip() if payload.webhook else None
                body = MessageBody(session=payload.session, request=payload.request)
            elif kind == "message":
                body = validate(SocketMessage, data).payload
            else:
                body = validate(SocketPlainMessage, data)
            request.request = body.request  # what an error reply echoes from now on
            return body

        try:
            # The checks of a REST call, per message: the token may have expired or its
            # client been revoked since the upgrade.
            admitted = await self.serving.admission.admit(
                request.action, self.token, self.host, read_body, record
            )
            if request.job:
                submitted = await self._submit(request, admitted, webhook)
                reply = encode_job_reply(job_resource(submitted), "accepted", request)
            else:
                reply = encode_reply(await self._run(request, admitted, record), request)
        except ServiceError as exc:
            if exc.code is ErrorCode.PROCESSING_FAILED:
                log.warning("websocket %s failed: %s", request.action, exc.message)
            record.failed_with(exc)
            envelope = error_envelope(
                request.action, exc.code, exc.message, request.request, exc.retry_after
            )
            reply = encode_reply(envelope, request)
        except asyncio.CancelledError:
            record.failed_with(
                ServiceError(ErrorCode.REQUEST_CANCELLED, "cancelled", reason="client_cancel")
            )
            record.finish(self.serving.metrics)
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
            reply = encode_reply(envelope, request)
        request.finished = True  # before the answer: a late partial must not follow it
        self._outbox.put_nowait(reply)
        if submitted is not None and not self._closed:
            self._watch(request, submitted.job_id)  # after "accepted": its end comes next
        record.finish(self.serving.metrics, log_content=self.serving.settings.log_content)

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
        self, request: SocketRequest, admitted: Admitted, record: RequestRecord
    ) -> Envelope:
        """Call the superpower through ``Operations`` (shutdown, idempotency key, result
        cache); with ``disableStream: false``, ``started`` frames carry the summary so far
        while the model writes it."""
        body = admitted.body
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
        results = await self.serving.operations.run(
            admitted.operation,
            body,
            tenant=admitted.caller.claims.tenant,
            record=record,
            idempotency_key=check_key(key, "headers.idempotencyKey") if key else None,
            on_partial=partial if streaming else None,
            charged=admitted.characters,
        )
        return results_envelope(request.action, results, body.request)

    async def _submit(
        self, request: SocketRequest, admitted: Admitted, webhook: str | None
    ) -> JobRecord:
        """Store and queue the request as a job, as ``POST /jobs/*`` does."""
        key = request.idempotency_key
        job, _ = await self.serving.jobs.submit(
            admitted,
            webhook_url=webhook,
            idempotency_key=check_key(key, "headers.idempotencyKey") if key else None,
        )
        return job

    def _watch(self, request: SocketRequest, job_id: str) -> None:
        """Push the job's end, correlated with the frame that submitted it, when it comes
        (from whichever replica ran it) and the socket is still open."""

        def ended(job: JobRecord) -> None:
            self._watches.discard(watch)
            if not self._closed:
                self._outbox.put_nowait(encode_job_reply(job_resource(job), job.status, request))

        watch = self.serving.jobs.watcher.watch(job_id, ended)
        self._watches.add(watch)

    # --- frames out ------------------------------------------------------------------------

    def _error(self, ids: FrameIds, code: ErrorCode, message: str) -> None:
        self._send(ids, error_envelope(ids.action, code, message))

    def _send(self, to: ReplyTo, envelope: Envelope) -> None:
        self._outbox.put_nowait(encode_reply(envelope, to))

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
