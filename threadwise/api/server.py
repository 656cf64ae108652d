"""uvicorn, with a graceful shutdown: on SIGTERM (or SIGINT) new work is refused with 503
while what is in flight finishes, within the grace period; then the server stops and the
process exits 0. A second signal stops it at once."""

from __future__ import annotations

import asyncio
import socket
from types import FrameType

import uvicorn

from threadwise.serving.lifecycle import Lifecycle


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, lifecycle: Lifecycle, grace_seconds: float) -> None:
        super().__init__(config)
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
