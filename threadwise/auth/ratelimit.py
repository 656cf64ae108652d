"""Rate limits per key (an organization's requests, its characters, failed token requests).

GCRA, the token bucket kept as one timestamp per key: a quota of N per minute admits a burst
of N, then one every 60/N seconds. Kept in the process by default, or in Redis so that every
replica shares the same limits.
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

from threadwise.shared_redis import OutageWarning, connect

log = logging.getLogger("threadwise.auth")

WINDOW_SECONDS = 60.0


@dataclass(frozen=True)
class Quota:
    key: str
    per_minute: int
    cost: int = 1

    @property
    def interval(self) -> float:
        return WINDOW_SECONDS / self.per_minute

    @property
    def capped_cost(self) -> int:
        # A single request larger than the whole quota waits for a full bucket, then goes.
        return max(0, min(self.cost, self.per_minute))


class RateLimiter(ABC):
    @abstractmethod
    async def acquire(self, quotas: Sequence[Quota]) -> float:
        """Take every quota's cost, all or none: 0 when taken, else seconds to wait first."""

    @abstractmethod
    async def check(self, quotas: Sequence[Quota]) -> float:
        """What ``acquire`` would answer, taking nothing."""

    @abstractmethod
    def close(self) -> None:
        """Release connections, if any."""


class InProcessRateLimiter(RateLimiter):
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._tats: dict[str, float] = {}
        self._lock = threading.Lock()
        self._calls = 0

    async def acquire(self, quotas: Sequence[Quota]) -> float:
        return self._apply(quotas, take=True)

    async def check(self, quotas: Sequence[Quota]) -> float:
        return self._apply(quotas, take=False)

    def _apply(self, quotas: Sequence[Quota], *, take: bool) -> float:
        with self._lock:
            now = self.clock()
            new_tats = [
                max(self._tats.get(q.key, now), now) + q.interval * q.capped_cost for q in quotas
            ]
            wait = max((tat - WINDOW_SECONDS - now for tat in new_tats), default=0.0)
            if wait > 0 or not take:
                return max(wait, 0.0)
            for quota, tat in zip(quotas, new_tats, strict=True):
                self._tats[quota.key] = tat
            self._calls += 1
            if self._calls % 4096 == 0:  # forget keys whose buckets are full again
                self._tats = {key: tat for key, tat in self._tats.items() if tat > now}
            return 0.0

    def close(self) -> None:
        """Nothing to release: the buckets die with the process."""


# The same algorithm as one atomic script, on Redis's clock (so replicas' clocks do not
# matter), in microseconds. KEYS: the quota keys; ARGV: window, take (1/0), then
# (interval, cost) per key.
_GCRA_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local wait = 0
local tats = {}
for i, key in ipairs(KEYS) do
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  tats[i] = tat + tonumber(ARGV[1 + 2 * i]) * tonumber(ARGV[2 + 2 * i])
  if tats[i] - window - now > wait then wait = tats[i] - window - now end
end
if wait > 0 or ARGV[2] ~= '1' then return math.ceil(wait) end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, string.format('%.0f', tats[i]), 'PX',
             math.ceil((tats[i] - now) / 1000) + 1)
end
return 0
"""


class RedisRateLimiter(RateLimiter):
    """Limits shared by every replica. If Redis cannot be reached, requests are admitted
    (and a warning logged): a Redis outage must not take the service down with it."""

    def __init__(self, url: str, prefix: str = "threadwise:rl:") -> None:
        self._client = connect(url)
        self._script = self._client.register_script(_GCRA_SCRIPT)
        self._prefix = prefix
        self._outage = OutageWarning(log, "rate limits not applied")

    async def acquire(self, quotas: Sequence[Quota]) -> float:
        return await anyio.to_thread.run_sync(self._apply, quotas, True)

    async def check(self, quotas: Sequence[Quota]) -> float:
        return await anyio.to_thread.run_sync(self._apply, quotas, False)

    def _apply(self, quotas: Sequence[Quota], take: bool) -> float:
        if not quotas:
            return 0.0
        args: list[int] = [round(WINDOW_SECONDS * 1e6), 1 if take else 0]
        for quota in quotas:
            args += [round(quota.interval * 1e6), quota.capped_cost]
        try:
            wait = self._script(keys=[self._prefix + q.key for q in quotas], args=args)
        except redis.RedisError as exc:
            self._outage.warn(exc)
            return 0.0
        return max(0.0, int(wait) / 1e6)

    def close(self) -> None:
        self._client.close()
