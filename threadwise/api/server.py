"""Run the app on uvicorn, configured for the WebSocket endpoint, with a graceful shutdown.

On SIGTERM (or SIGINT) new work is refused with 503 while what is in flight finishes, within
the grace period: REST requests, and WebSocket requests, whose sockets are then closed with
1001 ("going away", with a reason; uvicorn alone would drop them at once with 1012). Then the
server stops and the process exits 0. A second signal stops it at once.

A request's line and headers must arrive within ``header_timeout_seconds`` of its first byte
(or of the connection, for the first): uvicorn has no such limit, and a client that trickles
its headers holds a connection for as long as it likes.
"""

from __future__ import annotations

import asyncio
import os
import socket
from types import FrameType
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from threadwise.api.socket.registry import SocketRegistry
from threadwise.config import ConfigurationError, Settings
from threadwise.logs import log_config
from threadwise.serving.lifecycle import Lifecycle

_UVICORN_PROXIES = "FORWARDED_ALLOW_IPS"


class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's HTTP protocol, closing a connection whose request head is not all there
    ``header_seconds`` after the connection opened or the request began. (uvicorn's own
    keep-alive timeout covers only the wait between requests; it stops at a request's first
    byte.)"""

    header_seconds = 10.0
    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # the next request of a kept-alive connection

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _too_slow(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


class Server(uvicorn.Server):
    def __init__(
        self,
        config: uvicorn.Config,
        sockets: SocketRegistry,
        drain_seconds: float,
        lifecycle: Lifecycle,
        grace_seconds: float,
    ) -> None:
        super().__init__(config)

        async def close_sockets(grace: float) -> None:
            await sockets.close_all(min(grace, drain_seconds))

        # A drain closes this server's sockets once their requests are answered.
        self._unhook = lifecycle.on_shutdown(close_sockets)
        self.sockets = sockets
        self.drain_seconds = drain_seconds
        self.lifecycle = lifecycle
        self.grace_seconds = grace_seconds
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain: asyncio.Task[None] | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._loop is None or self.lifecycle.draining:
            super().handle_exit(sig, frame)  # a second signal: uvicorn's own, at once
            return
        # Not recorded as a captured signal: uvicorn would raise it again on the way out,
        # and the process would end by SIGTERM rather than exit 0.
        self.lifecycle.draining = True
        self._loop.call_soon_threadsafe(self._start_drain)

    def _start_drain(self) -> None:
        self._drain = asyncio.ensure_future(self._drained())

    async def _drained(self) -> None:
        await self.lifecycle.drain(self.grace_seconds)
        self.should_exit = True

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Sockets still open (a shutdown without a drain): their requests get their answers.
        await self.sockets.close_all(self.drain_seconds)
        self._unhook()
        await super().shutdown(sockets)


def build_server(app: FastAPI, settings: Settings, host: str, port: int, **config: Any) -> Server:
    """The server for ``app``; ``config`` overrides uvicorn settings (tests pass
    ``log_config=None``)."""
    if os.environ.get(_UVICORN_PROXIES) and not settings.forwarded_allow_ips:
        # A deployment written for uvicorn's variable would otherwise lose its clients'
        # addresses without a word: every client would share the proxy's per-address limits.
        raise ConfigurationError(
            f"{_UVICORN_PROXIES} is uvicorn's variable, not read here: set "
            "THREADWISE_FORWARDED_ALLOW_IPS to the addresses of the proxies in front, or unset it."
        )

    class Protocol(HeaderDeadline):
        header_seconds = settings.header_timeout_seconds

    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": log_config(settings.log_level, settings.log_format),
        # A larger frame fails its connection with 1009 before it is read into memory.
        "ws_max_size": settings.max_body_bytes,
        "ws_ping_interval": settings.websocket_ping_interval_seconds,
        "ws_ping_timeout": settings.websocket_ping_timeout_seconds,
        # The drain has already waited for the work in flight; this bounds what is left.
        "timeout_graceful_shutdown": 5,
        "http": Protocol,
        # Always given: uvicorn would otherwise take FORWARDED_ALLOW_IPS, or trust 127.0.0.1.
        "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        **config,
    }
    return Server(
        uvicorn.Config(app, **options),
        app.state.sockets,
        settings.websocket_shutdown_seconds,
        app.state.serving.lifecycle,
        settings.shutdown_grace_seconds,
    )
