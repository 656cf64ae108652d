"""What a replica read from the database, kept for a while: the stores of clients, policies,
glossaries and usage each keep one, so that a request costs no database round trip.

A store forgets an entry when it writes it, so a change takes effect at once on the replica
that made it, and within ``seconds`` on the others (``store_cache_seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Hashable
from typing import Final, Generic, TypeVar

import anyio.to_thread

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# Keys come from requests (organization ids): a bound keeps a flood of them from filling memory.
MAX_ENTRIES: Final = 10_000


class TtlCache(Generic[K, V]):
    """Values kept ``seconds`` each by ``clock``; at most ``max_entries``, the one stored first
    going first. Safe to use from several threads."""

    def __init__(
        self,
        seconds: float,
        *,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.max_entries = max_entries
        self.clock = clock
        self._entries: dict[K, tuple[float, V]] = {}  # until when, the value
        self._lock = threading.Lock()
        # Reads under way by ``read_through``, by key: the loop they run in, their value.
        self._flights: dict[K, tuple[asyncio.AbstractEventLoop, asyncio.Future[V]]] = {}

    def get(self, key: K) -> V | None:
        """The value under ``key`` while it is fresh; None once it has expired, or if none."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry[0] <= self.clock():
            return None
        return entry[1]

    def peek(self, key: K) -> V | None:
        """The value under ``key``, fresh or not (until it is evicted or forgotten)."""
        with self._lock:
            entry = self._entries.get(key)
        return None if entry is None else entry[1]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` for ``seconds`` from now."""
        with self._lock:
            if key not in self._entries and len(self._entries) >= self.max_entries:
                self._entries.pop(next(iter(self._entries)))
            self._entries[key] = (self.clock() + self.seconds, value)

    def replace(self, key: K, value: V) -> None:
        """Change the value under ``key`` and keep its expiry: what was added to the database
        since it was read does not make it fresher. Nothing if there is no value."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries[key] = (entry[0], value)

    def forget(self, key: K) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    async def read_through(self, key: K, read: Callable[[], V]) -> V:
        """The fresh value under ``key``, else what ``read`` returns (run off the event loop),
        kept. ``read`` may return None; that is kept too."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and entry[0] > self.clock():
            return entry[1]
        loop = asyncio.get_running_loop()
        flight = self._flights.get(key)
        if flight is not None and flight[0] is loop:
            # A read of this key is under way: its value, not a read each (a burst of
            # requests as an entry expires). Should it fail, each reads for itself.
            with contextlib.suppress(Exception):
                return await asyncio.shield(flight[1])
        future: asyncio.Future[V] = loop.create_future()
        self._flights[key] = (loop, future)
        try:
            value = await anyio.to_thread.run_sync(read)
        except BaseException as exc:
            future.set_exception(exc if isinstance(exc, Exception) else RuntimeError("stopped"))
            future.exception()  # read here: nobody may be waiting for it
            raise
        finally:
            if self._flights.get(key, (None, None))[1] is future:
                del self._flights[key]
        self.put(key, value)
        future.set_result(value)
        return value

    def __len__(self) -> int:
        return len(self._entries)
