"""What every Redis-backed store here shares: a client that gives up fast, and a warning
logged at most once a minute when Redis cannot be reached (each store then degrades rather
than fails: limits not applied, keys not kept, cache missed)."""

from __future__ import annotations

import logging
import time

import redis


def connect(url: str) -> redis.Redis:
    """A client whose calls fail within half a second when Redis is unreachable."""
    return redis.Redis.from_url(
        url, socket_timeout=0.5, socket_connect_timeout=0.5, health_check_interval=30
    )


class OutageWarning:
    """``warn`` logs ``what`` is not done because Redis is unavailable, once a minute at most
    (not once per request)."""

    def __init__(self, log: logging.Logger, what: str) -> None:
        self.log = log
        self.what = what
        self._warned_at = float("-inf")

    def warn(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at > 60:
            self._warned_at = now
            self.log.warning("%s: Redis is unavailable (%s)", self.what, exc)
