"""The engine's own event loop on a thread of its own, and the calling thread's side of it.

Requests run on that loop (one thread, one connection pool); the calling thread waits for
them, passes streamed text to ``on_text`` and watches the deadline. A request whose deadline
passes, or whose caller went away, is cancelled, which closes its stream.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

T = TypeVar("T")
Emit = Callable[[str], None]

# How often a waiting caller looks at its deadline.
_POLL_SECONDS = 0.05


class EngineLoop:
    """Started by the first ``run``, which opens it with ``opening``; ``close`` runs
    ``closing`` on it, then stops it."""

    def __init__(
        self,
        host: str,
        opening: Callable[[], Coroutine[Any, Any, None]],
        closing: Callable[[], Coroutine[Any, Any, None]],
    ) -> None:
        self.host = host
        self._opening = opening
        self._closing = closing
        self._start_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> asyncio.AbstractEventLoop | None:
        """The loop, once started (and until closed)."""
        return self._loop

    def start(self) -> asyncio.AbstractEventLoop:
        with self._start_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name=f"llm-{self.host}", daemon=True
                )
                thread.start()
                asyncio.run_coroutine_threadsafe(self._opening(), loop).result()
                self._loop, self._thread = loop, thread
            return self._loop

    def close(self) -> None:
        with self._start_lock:
            loop, thread, self._loop = self._loop, self._thread, None
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._closing(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()

    def run(
        self,
        work: Callable[[Emit | None], Coroutine[Any, Any, T]],
        deadline: Deadline | None,
        on_text: Callable[[str], None] | None = None,
    ) -> T:
        """``work`` on the loop; its text passed to ``on_text`` on this thread. Past the
        deadline, or cancelled, it is cancelled (its streams closed) and this raises."""
        loop = self.start()
        pieces: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        future = asyncio.run_coroutine_threadsafe(
            work(pieces.put if on_text is not None else None), loop
        )
        future.add_done_callback(lambda _: pieces.put(None))
        try:
            while True:
                try:
                    piece = pieces.get(timeout=_POLL_SECONDS)
                except queue.Empty:
                    piece = ""
                if piece is None:
                    return future.result()
                if piece and on_text is not None:
                    on_text(piece)
                if deadline is not None and deadline.stop_requested():
                    deadline.check()
        except concurrent.futures.CancelledError:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                f"The request to the model server at {self.host} was cancelled: the engine is "
                "shutting down. Retry the request.",
            ) from None
        finally:
            future.cancel()  # nothing once it is done; else its streams are closed
