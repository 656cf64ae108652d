"""Rate limits per key (an organization's requests, its characters, failed token requests).

GCRA, the token bucket kept as one timestamp per key: a quota of N per minute admits a burst
of N, then one every 60/N seconds. Kept in the process by default, or in Redis so that every
replica shares the same limits.

Time is kept in integers (nanoseconds in the process, microseconds in Redis), and each take
of a quota is its share of the window rounded down: a full burst always fits in the window,
where float arithmetic could leave ``(now + 60) - 60 - now`` a hair above zero and refuse a
fresh quota.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anyio.to_thread
import redis
from redis.commands.core import Script

from threadwise.shared_redis import OutageWarning, connect

log = logging.getLogger("threadwise.auth")

WINDOW_SECONDS = 60
_NANOSECONDS = 1_000_000_000
_MICROSECONDS = 1_000_000


@dataclass(frozen=True)
class Quota:
    key: str
    per_minute: int
    cost: int = 1

    def share(self, window: int) -> int:
        """The part of ``window`` (in any integer unit) that this cost uses, rounded down.

        A single cost larger than the whole quota waits for a full bucket, then goes.
        """
        cost = max(0, min(self.cost, self.per_minute))
        return window * cost // self.per_minute


class RateLimiter(ABC):
    @abstractmethod
    async def acquire(self, quotas: Sequence[Quota]) -> float:
        """Take every quota's cost, all or none: 0.0 when taken, else the seconds to wait
        (never rounded down to zero)."""

    @abstractmethod
    async def release(self, quotas: Sequence[Quota]) -> None:
        """Give back what an ``acquire`` of the same quotas took: a reservation that turned
        out not to be needed (a token request whose secret was right)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections, if any."""


def _seconds(wait: int, per_second: int) -> float:
    return wait / per_second if wait > 0 else 0.0


class InProcessRateLimiter(RateLimiter):
    """``clock`` gives integer nanoseconds (``time.monotonic_ns``)."""

    def __init__(self, clock: Callable[[], int] = time.monotonic_ns) -> None:
        self.clock = clock
        self._tats: dict[str, int] = {}
        self._lock = threading.Lock()
        self._calls = 0

    async def acquire(self, quotas: Sequence[Quota]) -> float:
        return _seconds(self._take(quotas), _NANOSECONDS)

    async def release(self, quotas: Sequence[Quota]) -> None:
        window = WINDOW_SECONDS * _NANOSECONDS
        with self._lock:
            now = self.clock()
            for quota in quotas:
                tat = self._tats.get(quota.key)
                if tat is None:
                    continue
                tat -= quota.share(window)
                if tat > now:
                    self._tats[quota.key] = tat
                else:  # the bucket is full again
                    del self._tats[quota.key]

    def _take(self, quotas: Sequence[Quota]) -> int:
        """Nanoseconds to wait, 0 when taken."""
        window = WINDOW_SECONDS * _NANOSECONDS
        with self._lock:
            now = self.clock()
            new_tats = [max(self._tats.get(q.key, now), now) + q.share(window) for q in quotas]
            wait = max((tat - window - now for tat in new_tats), default=0)
            if wait > 0:
                return wait
            for quota, tat in zip(quotas, new_tats, strict=True):
                self._tats[quota.key] = tat
            self._calls += 1
            if self._calls % 4096 == 0:  # forget keys whose buckets are full again
                self._tats = {key: tat for key, tat in self._tats.items() if tat > now}
            return 0

    def close(self) -> None:
        """Nothing to release: the buckets die with the process."""


# The same algorithm as atomic scripts, on Redis's clock (so replicas' clocks do not matter),
# in integer microseconds (exact in Lua's doubles). KEYS: the quota keys; ARGV: the window,
# then each key's share of it.
_TAKE_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local wait = 0
local tats = {}
for i, key in ipairs(KEYS) do
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  tats[i] = tat + tonumber(ARGV[1 + i])
  if tats[i] - window - now > wait then wait = tats[i] - window - now end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, string.format('%.0f', tats[i]), 'PX',
             math.ceil((tats[i] - now) / 1000) + 1)
end
return 0
"""
_RELEASE_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i, key in ipairs(KEYS) do
  local tat = tonumber(redis.call('GET', key))
  if tat then
    tat = tat - tonumber(ARGV[1 + i])
    if tat > now then
      redis.call('SET', key, string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
    else
      redis.call('DEL', key)
    end
  end
end
return 0
"""


class RedisRateLimiter(RateLimiter):
    """Limits shared by every replica. If Redis cannot be reached, requests are admitted
    (and a warning logged): a Redis outage must not take the service down with it."""

    def __init__(self, url: str, prefix: str = "threadwise:rl:") -> None:
        self._client = connect(url)
        self._take = self._client.register_script(_TAKE_SCRIPT)
        self._release = self._client.register_script(_RELEASE_SCRIPT)
        self._prefix = prefix
        self._outage = OutageWarning(log, "rate limits not applied")

    async def acquire(self, quotas: Sequence[Quota]) -> float:
        wait = await anyio.to_thread.run_sync(self._run, self._take, quotas)
        return _seconds(wait, _MICROSECONDS)

    async def release(self, quotas: Sequence[Quota]) -> None:
        await anyio.to_thread.run_sync(self._run, self._release, quotas)

    def _run(self, script: Script, quotas: Sequence[Quota]) -> int:
        if not quotas:
            return 0
        window = WINDOW_SECONDS * _MICROSECONDS
        args = [window, *(quota.share(window) for quota in quotas)]
        try:
            return int(script(keys=[self._prefix + q.key for q in quotas], args=args))
        except redis.RedisError as exc:
            self._outage.warn(exc)
            return 0

    def close(self) -> None:
        self._client.close()
