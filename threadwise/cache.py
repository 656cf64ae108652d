"""A cache of JSON values with a time to live: in the process (LRU) or in Redis.

The result cache and the memory of summarized threads use it; their keys are digests that
include the organization, so one organization never reads another's entries.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import redis

from threadwise.shared_redis import OutageWarning, connect

log = logging.getLogger(__name__)


class Cache(ABC):
    @abstractmethod
    async def get(self, key: str) -> Any | None:
        """The value stored under ``key``, or None."""

    @abstractmethod
    async def put(self, key: str, value: Any, ttl_seconds: float) -> None:
        """Store a JSON-serializable ``value`` for ``ttl_seconds``."""

    @abstractmethod
    def close(self) -> None:
        """Release connections, if any."""


class InProcessCache(Cache):
    """At most ``max_entries`` values; the least recently used goes first."""

    def __init__(self, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    async def get(self, key: str) -> Any | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires, text = entry
            if expires <= self.clock():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
        return json.loads(text)

    async def put(self, key: str, value: Any, ttl_seconds: float) -> None:
        if self.max_entries == 0 or ttl_seconds <= 0:
            return
        # Stored as text: a caller cannot change a cached value through the object it holds.
        text = json.dumps(value, separators=(",", ":"))
        with self._lock:
            self._entries[key] = (self.clock() + ttl_seconds, text)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def close(self) -> None:
        """Nothing to release."""


class RedisCache(Cache):
    """Values shared by every replica. Redis unreachable: a miss (and a warning a minute)."""

    def __init__(self, url: str, prefix: str) -> None:
        self._client = connect(url)
        self._prefix = prefix
        self._outage = OutageWarning(log, "cache not used")

    async def get(self, key: str) -> Any | None:
        text = await anyio.to_thread.run_sync(self._call, "get", self._prefix + key)
        return None if text is None else json.loads(text)

    async def put(self, key: str, value: Any, ttl_seconds: float) -> None:
        if ttl_seconds <= 0:
            return
        text = json.dumps(value, separators=(",", ":"))
        await anyio.to_thread.run_sync(
            self._call, "set", self._prefix + key, text, max(1, round(ttl_seconds * 1000))
        )

    def _call(self, operation: str, key: str, text: str = "", ttl_ms: int = 0) -> Any:
        try:
            if operation == "get":
                return self._client.get(key)
            return self._client.set(key, text, px=ttl_ms)
        except redis.RedisError as exc:
            self._outage.warn(exc)
            return None

    def close(self) -> None:
        self._client.close()
