"""Spans of one text that do not overlap, kept in order."""

from __future__ import annotations

import bisect


class DisjointSpans:
    """Spans taken one by one, each only if it overlaps none taken before. Whether it does is
    found by bisection: comparing each with every span taken is quadratic in a long text."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def take(self, start: int, end: int) -> bool:
        """Take ``start:end`` if it overlaps no span taken; whether it did."""
        if not self.free(start, end):
            return False
        at = bisect.bisect_left(self._starts, end)
        self._starts.insert(at, start)
        self._ends.insert(at, end)
        return True

    def free(self, start: int, end: int) -> bool:
        """Whether ``start:end`` overlaps no span taken."""
        before = bisect.bisect_left(self._starts, end)  # the spans that start before its end
        # Their ends are in order too: the last of them ends last.
        return not before or self._ends[before - 1] <= start
