"""The open sockets, so that shutdown can let their requests finish and close them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from threadwise.api.socket.session import SocketSession


@dataclass
class SocketRegistry:
    """The sessions of the open sockets; ``closing`` once shutdown has begun."""

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
