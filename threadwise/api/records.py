"""The request record of every superpower call over REST: made when the request comes in,
logged and counted when its response has gone out (see ``threadwise.serving.records``)."""

from __future__ import annotations

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from threadwise.serving.context import ServingContext
from threadwise.serving.records import RequestRecord

CORRELATION_HEADERS = ("x-correlation-id", "x-request-id")


class RequestRecords:
    """For ``/message/…``: a record in ``request.state.record``; the correlation and trace
    IDs echoed as response headers."""

    def __init__(self, app: ASGIApp, serving: ServingContext) -> None:
        self.app = app
        self.serving = serving

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/message/"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        record = RequestRecord.start(
            "rest",
            correlation_id=next((headers[h] for h in CORRELATION_HEADERS if h in headers), None),
            trace_id=headers.get("x-trace-id"),
            traceparent=headers.get("traceparent"),
        )
        scope.setdefault("state", {})["record"] = record

        async def send_with_ids(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
                extra = [
                    (b"x-correlation-id", record.correlation_id.encode("latin-1", "replace")),
                    (b"x-trace-id", record.trace_id.encode("latin-1", "replace")),
                ]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_ids)
        except Exception:
            record.status = 500
            if record.code == "OK":
                record.code = "PROCESSING_FAILED"
            raise
        finally:
            serving = self.serving
            record.finish(serving.metrics, log_content=serving.settings.log_content)


def record_of(request: Request) -> RequestRecord:
    """The request's record (one is made if the middleware did not: a test app, say)."""
    record = getattr(request.state, "record", None)
    if record is None:
        record = RequestRecord.start("rest")
        request.state.record = record
    assert isinstance(record, RequestRecord)
    return record
