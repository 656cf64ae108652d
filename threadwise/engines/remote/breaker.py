"""A circuit breaker in front of a model server.

Without one, every request to a server that is down waits for its own connection to fail.
After ``failures`` connection failures in a row the breaker opens: requests fail at once, and
``/readyz`` says why. While it is open, a probe every ``cooldown`` seconds (half-open: a cheap
request, not a user's) decides when it closes again; any success closes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class CircuitBreaker:
    def __init__(
        self,
        failures: int,
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._in_a_row = 0
        self._opened_at: float | None = None
        self._reason = ""

    @property
    def open(self) -> bool:
        with self._lock:
            return self._opened_at is not None

    @property
    def reason(self) -> str:
        """The last failure, as a sentence fragment ("connection refused")."""
        with self._lock:
            return self._reason

    def next_probe(self) -> float:
        """Seconds until the next probe of an open breaker (0 when due, or closed)."""
        with self._lock:
            if self._opened_at is None:
                return 0.0
            return max(0.0, self._opened_at + self.cooldown - self._clock())

    def succeeded(self) -> None:
        with self._lock:
            self._in_a_row = 0
            self._opened_at = None

    def failed(self, reason: str) -> bool:
        """Count a connection failure; True when it opens the breaker."""
        with self._lock:
            self._in_a_row += 1
            self._reason = reason
            if self._opened_at is None and self._in_a_row >= self.failures:
                self._opened_at = self._clock()
                return True
            return False

    def trip(self, reason: str) -> bool:
        """Open now (a probe failed, or the server was unreachable at start); True when it
        was closed. An open breaker's next probe is ``cooldown`` from now."""
        with self._lock:
            was_closed = self._opened_at is None
            self._reason = reason
            self._in_a_row = max(self._in_a_row, self.failures)
            self._opened_at = self._clock()
            return was_closed
