"""One WebSocket to threadwise: many requests in flight, each reply matched to its request by
correlation id, streaming and cancellation. Frames are built as the official JavaScript client
builds them, so the server cannot tell the two apart; they carry raw envelopes."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal, Self
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from threadwise.client.errors import SocketClosed, ThreadwiseError

Transport = Literal["subprotocol", "query"]
SUBPROTOCOL = "optave-v1"


@dataclass
class _Pending:
    action: str
    frames: asyncio.Queue[dict[str, Any] | SocketClosed] = field(default_factory=asyncio.Queue)


class SuperpowerSocket:
    """One WebSocket: sends requests, matches each reply to its request by correlation id.

    Frames no request is waiting for (the answer to an unreadable frame, say) go to
    ``unmatched``. ``bearer`` gives the token (or API key) to open with.
    """

    def __init__(
        self,
        url: str,
        transport: Transport,
        bearer: Callable[[], Awaitable[str]],
        timeout: float,
    ) -> None:
        self.url = url
        self.transport = transport
        self.timeout = timeout
        self.unmatched: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.connection: ClientConnection | None = None
        self._bearer = bearer
        self._pending: dict[str, _Pending] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closed: SocketClosed | None = None

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def subprotocol(self) -> str | None:
        """What the server answered in ``Sec-WebSocket-Protocol``."""
        return self.connection.subprotocol if self.connection else None

    async def open(self) -> None:
        token = await self._bearer()
        url, subprotocols = self.url, None
        if self.transport == "query":
            url = f"{url}?Authorization={quote(token, safe='')}"
        else:
            subprotocols = [Subprotocol(SUBPROTOCOL), Subprotocol(token)]
        try:
            self.connection = await connect(
                url, subprotocols=subprotocols, open_timeout=self.timeout, max_size=None
            )
        except InvalidStatus as refused:
            response = refused.response
            try:
                answer = json.loads(response.body or b"")
            except ValueError:
                answer = None
            raise ThreadwiseError.from_reply(
                answer, response.status_code, dict(response.headers.raw_items())
            ) from None
        self._reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        if self.connection is not None:
            await self.connection.close()
        if self._reader is not None:
            await self._reader

    async def _read(self) -> None:
        assert self.connection is not None
        try:
            async for text in self.connection:
                frame = json.loads(text)
                pending = self._pending.get(_correlation_id(frame) or "")
                if pending is None:
                    self.unmatched.put_nowait(frame)
                else:
                    pending.frames.put_nowait(frame)
        except ConnectionClosed:
            pass
        finally:
            connection = self.connection
            self._closed = SocketClosed(connection.close_code, connection.close_reason or "")
            for pending in self._pending.values():
                pending.frames.put_nowait(self._closed)

    # --- requests ----------------------------------------------------------------------------

    async def send(
        self,
        action: str,
        body: dict[str, Any],
        *,
        correlation_id: str | None = None,
        idempotency_key: str | None = None,
        stream: bool = False,
    ) -> str:
        """Send one request; its correlation id (a new UUID unless given). The server answers
        a request whose ``idempotency_key`` it has seen with the first one's answer."""
        correlation_id = correlation_id or str(uuid.uuid4())
        if correlation_id in self._pending:
            raise ValueError(f"correlation id {correlation_id!r} is already in flight")
        if stream:
            body = copy.deepcopy(body)
            body["request"].setdefault("settings", {})["disableStream"] = False
        frame = {
            "action": "message",
            "headers": {
                "correlationId": correlation_id,
                "action": action,
                "schemaRef": "optave.message.v3",
                "identifier": "message",
                "traceId": str(uuid.uuid4()),
                "idempotencyKey": idempotency_key or str(uuid.uuid4()),
                "issuedAt": datetime.now(UTC).isoformat(timespec="milliseconds"),
            },
            "payload": body,
        }
        self._pending[correlation_id] = _Pending(action)
        try:
            await self.send_raw(json.dumps(frame, ensure_ascii=False))
        except BaseException:
            del self._pending[correlation_id]
            raise
        return correlation_id

    async def send_raw(self, text: str) -> None:
        """Send a frame as it is (its replies arrive in ``unmatched``)."""
        if self._closed is not None:
            raise self._closed
        assert self.connection is not None, "open the socket first"
        await self.connection.send(text)

    async def replies(
        self, correlation_id: str, *, timeout: float | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """The frames answering ``correlation_id``: any ``started`` ones, then the
        ``completed`` one. An error frame raises ``ThreadwiseError``; past ``timeout`` the
        request is cancelled on the server and ``TimeoutError`` raised."""
        pending = self._pending[correlation_id]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.timeout if timeout is None else timeout)
        try:
            while True:
                # A deadline per wait, not a timeout around the yields: those run the caller's
                # code, which a timeout must not cancel.
                frame = await asyncio.wait_for(pending.frames.get(), deadline - loop.time())
                if isinstance(frame, SocketClosed):
                    raise frame
                if frame.get("state") == "error" or frame.get("error"):
                    raise ThreadwiseError.from_reply(frame)
                yield frame
                if frame.get("state") != "started":
                    return
        except TimeoutError:
            with contextlib.suppress(ConnectionError, ConnectionClosed):
                await self.cancel(correlation_id)
            raise
        finally:
            self._pending.pop(correlation_id, None)

    async def request(
        self,
        action: str,
        body: dict[str, Any],
        *,
        timeout: float | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Send a request and wait for its completed frame."""
        correlation_id = await self.send(action, body, idempotency_key=idempotency_key)
        last: dict[str, Any] = {}
        async for frame in self.replies(correlation_id, timeout=timeout):
            last = frame
        return last

    async def stream(
        self,
        action: str,
        body: dict[str, Any],
        *,
        timeout: float | None = None,
        idempotency_key: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Send a request with streaming on (``disableStream: false``): yields the ``started``
        frames (the cumulative partial content) and then the ``completed`` one."""
        correlation_id = await self.send(action, body, stream=True, idempotency_key=idempotency_key)
        async for frame in self.replies(correlation_id, timeout=timeout):
            yield frame

    async def summarize(self, body: dict[str, Any], *, timeout: float | None = None) -> Any:
        """The completed envelope of a summary of ``body``."""
        return await self.request("summarize", body, timeout=timeout)

    async def translate(self, body: dict[str, Any], *, timeout: float | None = None) -> Any:
        """The completed envelope of the translations of ``body``."""
        return await self.request("translate", body, timeout=timeout)

    async def cancel(self, correlation_id: str) -> None:
        """Ask the server to stop the request; its waiter gets a ``REQUEST_CANCELLED`` error."""
        frame = {"action": "cancel", "headers": {"correlationId": correlation_id}}
        await self.send_raw(json.dumps(frame))


def _correlation_id(frame: Any) -> str | None:
    if not isinstance(frame, dict):
        return None
    headers = frame.get("headers")
    value = headers.get("correlationId") if isinstance(headers, dict) else None
    value = value if value is not None else frame.get("correlationId")
    return value if isinstance(value, str) else None
