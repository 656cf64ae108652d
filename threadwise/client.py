"""A Python client for threadwise: tokens, both superpowers over REST, and the WebSocket with
many requests in flight, streaming and cancellation.

    async with ThreadwiseClient(url, client_id=..., client_secret=...) as threadwise:
        envelope = await threadwise.summarize(body)              # REST
        async with threadwise.connect() as socket:               # WebSocket
            replies = await asyncio.gather(*(socket.translate(b) for b in bodies))
            async for frame in socket.stream("summarize", body):  # started…, completed
                ...

``SyncClient`` wraps the same calls for scripts. Frames are built as the official JavaScript
client builds them, so the server cannot tell the two apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal, Self
from urllib.parse import quote, urlsplit, urlunsplit

import httpx2
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

Superpower = Literal["summarize", "translate"]
Transport = Literal["subprotocol", "query"]
SUBPROTOCOL = "optave-v1"
DEFAULT_TIMEOUT = 120.0


class ThreadwiseError(Exception):
    """An error answer: its code, message and whether a retry may succeed; ``status`` is the
    HTTP status (``None`` for a WebSocket error frame), ``reply`` the whole answer."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        reply: Any = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retryable = retryable
        self.status = status
        self.reply = reply

    @classmethod
    def from_reply(cls, reply: Any, status: int | None = None) -> ThreadwiseError:
        error = reply.get("error") if isinstance(reply, dict) else None
        if isinstance(error, dict):  # the superpower envelope
            return cls(
                str(error.get("code", "REMOTE_ERROR")),
                str(error.get("message", "")),
                retryable=bool(error.get("retryable")),
                status=status,
                reply=reply,
            )
        if isinstance(error, str):  # the token endpoint's OAuth2 form
            description = reply.get("error_description", "")
            return cls(error, str(description), status=status, reply=reply)
        return cls("REMOTE_ERROR", f"unexpected answer: {reply!r}"[:500], status=status)


class SocketClosed(ConnectionError):
    """The socket closed while a request waited for its reply."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"the WebSocket closed ({code}): {reason or 'no reason given'}")
        self.code = code
        self.reason = reason


class ThreadwiseClient:
    """Async client: fetches (and caches) a token, calls the REST routes, opens sockets."""

    def __init__(
        self,
        base_url: str,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self.client_secret = client_secret
        self.timeout = timeout
        self._token = token
        self._http = httpx2.AsyncClient(base_url=self.base_url, timeout=timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def token(self, *, refresh: bool = False) -> str:
        """An access token: the one given, or one fetched with the client credentials as the
        official client asks for it (query string, empty body)."""
        if self._token is not None and not refresh:
            return self._token
        if self.client_id is None or self.client_secret is None:
            raise ValueError("a token, or client_id and client_secret to fetch one, is needed")
        response = await self._http.post(
            "/auth/oauth2/token",
            params={
                "grant_type": "client_credentials",
                "client_id": self.client_id,
                "client_secret": self.client_secret,
            },
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        answer = response.json()
        if response.status_code != 200:
            raise ThreadwiseError.from_reply(answer, response.status_code)
        token: str = answer["access_token"]
        self._token = token
        return token

    async def call(self, action: Superpower, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /message/<action>``: the completed envelope, or ``ThreadwiseError``."""
        headers = {"Authorization": f"Bearer {await self.token()}"}
        response = await self._http.post(f"/message/{action}", json=body, headers=headers)
        envelope: dict[str, Any] = response.json()
        if response.status_code != 200:
            raise ThreadwiseError.from_reply(envelope, response.status_code)
        return envelope

    async def summarize(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.call("summarize", body)

    async def translate(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.call("translate", body)

    def connect(
        self, *, transport: Transport = "subprotocol", path: str = "/ws"
    ) -> SuperpowerSocket:
        """A socket to open with ``async with`` (or ``await socket.open()``)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        url = urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + path, "", ""))
        return SuperpowerSocket(self, url, transport)


@dataclass
class _Pending:
    action: str
    frames: asyncio.Queue[dict[str, Any] | SocketClosed] = field(default_factory=asyncio.Queue)


class SuperpowerSocket:
    """One WebSocket: sends requests, matches each reply to its request by correlation id.

    Frames no request is waiting for (the answer to an unreadable frame, say) go to
    ``unmatched``.
    """

    def __init__(self, client: ThreadwiseClient, url: str, transport: Transport) -> None:
        self.client = client
        self.url = url
        self.transport = transport
        self.unmatched: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.connection: ClientConnection | None = None
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
        token = await self.client.token()
        url, subprotocols = self.url, None
        if self.transport == "query":
            url = f"{url}?Authorization={quote(token, safe='')}"
        else:
            subprotocols = [Subprotocol(SUBPROTOCOL), Subprotocol(token)]
        try:
            self.connection = await connect(
                url,
                subprotocols=subprotocols,
                open_timeout=self.client.timeout,
                max_size=None,
            )
        except InvalidStatus as refused:
            response = refused.response
            try:
                answer = json.loads(response.body or b"")
            except ValueError:
                answer = None
            raise ThreadwiseError.from_reply(answer, response.status_code) from None
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
        stream: bool = False,
    ) -> str:
        """Send one request; its correlation id (a new UUID unless given)."""
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
                "idempotencyKey": str(uuid.uuid4()),
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
        deadline = loop.time() + (self.client.timeout if timeout is None else timeout)
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
        self, action: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Send a request and wait for its completed frame."""
        correlation_id = await self.send(action, body)
        last: dict[str, Any] = {}
        async for frame in self.replies(correlation_id, timeout=timeout):
            last = frame
        return last

    async def stream(
        self, action: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Send a request with streaming on (``disableStream: false``): yields the ``started``
        frames (the cumulative partial content) and then the ``completed`` one."""
        correlation_id = await self.send(action, body, stream=True)
        async for frame in self.replies(correlation_id, timeout=timeout):
            yield frame

    async def summarize(self, body: dict[str, Any], *, timeout: float | None = None) -> Any:
        return await self.request("summarize", body, timeout=timeout)

    async def translate(self, body: dict[str, Any], *, timeout: float | None = None) -> Any:
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


class SyncClient:
    """Blocking calls, for scripts: ``summarize`` and ``translate`` over REST, or over a
    WebSocket opened for the call with ``websocket=True``."""

    def __init__(self, base_url: str, **options: Any) -> None:
        self._runner = asyncio.Runner()
        self._client: ThreadwiseClient = self._runner.run(_build(base_url, options))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._runner.run(self._client.aclose())
        self._runner.close()

    def token(self) -> str:
        return self._runner.run(self._client.token())

    def summarize(self, body: dict[str, Any], *, websocket: bool = False) -> dict[str, Any]:
        return self._runner.run(self._call("summarize", body, websocket))

    def translate(self, body: dict[str, Any], *, websocket: bool = False) -> dict[str, Any]:
        return self._runner.run(self._call("translate", body, websocket))

    async def _call(
        self, action: Superpower, body: dict[str, Any], websocket: bool
    ) -> dict[str, Any]:
        if not websocket:
            return await self._client.call(action, body)
        async with self._client.connect() as socket:
            reply: dict[str, Any] = await socket.request(action, body)
            return reply


async def _build(base_url: str, options: dict[str, Any]) -> ThreadwiseClient:
    # httpx2's client binds to the running loop: build it on the runner's.
    return ThreadwiseClient(base_url, **options)
