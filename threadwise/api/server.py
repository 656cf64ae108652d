"""Run the app on uvicorn, configured for the WebSocket endpoint, with a shutdown that lets
WebSocket requests in flight be answered."""

from __future__ import annotations

import socket
from typing import Any

import uvicorn
from fastapi import FastAPI

from threadwise.api.websocket import SocketRegistry
from threadwise.config import Settings
from threadwise.logs import log_config


class Server(uvicorn.Server):
    """uvicorn's server, whose shutdown first lets the requests in flight on WebSockets be
    answered and closes their sockets with 1001 ("going away", with a reason); uvicorn alone
    would drop them at once with 1012."""

    def __init__(
        self, config: uvicorn.Config, sockets: SocketRegistry, drain_seconds: float
    ) -> None:
        super().__init__(config)
        self.sockets = sockets
        self.drain_seconds = drain_seconds

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await self.sockets.close_all(self.drain_seconds)
        await super().shutdown(sockets)


def build_server(app: FastAPI, settings: Settings, host: str, port: int, **config: Any) -> Server:
    """The server for ``app``; ``config`` overrides uvicorn settings (tests pass
    ``log_config=None``)."""
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": log_config(),
        # A larger frame fails its connection with 1009 before it is read into memory.
        "ws_max_size": settings.max_body_bytes,
        "ws_ping_interval": settings.websocket_ping_interval_seconds,
        "ws_ping_timeout": settings.websocket_ping_timeout_seconds,
        **config,
    }
    sockets: SocketRegistry = app.state.sockets
    return Server(uvicorn.Config(app, **options), sockets, settings.websocket_shutdown_seconds)
