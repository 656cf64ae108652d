"""A clock for code that takes one: it moves only when the test moves it."""

from __future__ import annotations


class ManualClock:
    """Reads ``now``, which the test sets or advances (``clock.now += 5``)."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
