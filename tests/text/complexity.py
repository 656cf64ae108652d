"""How a scanner's time grows with its text: the one place tests time code (issue 25).

A scanner is timed on an adversarial text of each size, doubling from 1,000 to 32,000
characters; its *doubling ratio* is how much longer a text twice as long takes: about 2 when
the time grows linearly, 4 when it grows quadratically. To hold on a busy machine, each size
takes the best of a few runs (each of enough calls to outlast a time slice), garbage
collection is off, and the ratio is fitted over the larger sizes (the smaller are mostly
overhead) rather than read from one pair.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable

SIZES = (1_000, 2_000, 4_000, 8_000, 16_000, 32_000)
MAX_RATIO = 2.5
# The ratio is fitted over the largest sizes; a run of the smallest of them is made of calls
# enough to take this long, so that every fitted run outlasts a time slice of a busy machine
# (runs shorter than one, and longer ones, are slowed down by other processes differently).
FITTED_SIZES = 4
SHORTEST_RUN_SECONDS = 0.008
# Each size: the best of up to this many runs, as many as fit in a budget (at least two).
RUNS = 3
SIZE_BUDGET_SECONDS = 0.15
# A size that takes this long ends the measurement: the growth is plain by then, and the next
# size of a quadratic scanner would take four times as long.
ENOUGH_SECONDS = 1.0
# A ratio over the bound is measured again once: a moment of a busy machine can make one
# size slow, a quadratic scanner is slow every time.
ATTEMPTS = 2


def doubling_ratio(
    scan: Callable[[str], object], text_of: Callable[[int], str], sizes: tuple[int, ...] = SIZES
) -> tuple[float, list[tuple[int, float]]]:
    """``scan``'s doubling ratio on ``text_of(size)``, and the seconds each size took."""
    scan(text_of(sizes[0]))  # caches filled, patterns compiled
    smallest_fitted = text_of(sizes[-FITTED_SIZES])
    start = time.perf_counter()
    scan(smallest_fitted)
    calls = max(1, math.ceil(SHORTEST_RUN_SECONDS / (time.perf_counter() - start)))
    best: tuple[float, list[tuple[int, float]]] = (math.inf, [])
    for _ in range(ATTEMPTS):
        timings = _timings(scan, text_of, sizes, calls)
        if len(timings) < 2:
            return math.inf, timings  # the smallest text alone took too long
        best = min(best, (2 ** _slope(timings[-FITTED_SIZES:]), timings))
        if best[0] <= MAX_RATIO:
            break
    return best


def report(timings: list[tuple[int, float]]) -> str:
    return ", ".join(f"{size:,} chars: {seconds * 1000:.1f} ms" for size, seconds in timings)


def _timings(
    scan: Callable[[str], object], text_of: Callable[[int], str], sizes: tuple[int, ...], calls: int
) -> list[tuple[int, float]]:
    timings: list[tuple[int, float]] = []
    gc.disable()
    try:
        for size in sizes:
            timings.append((size, _best(scan, text_of(size), calls)))
            if timings[-1][1] > ENOUGH_SECONDS:
                break
    finally:
        gc.enable()
    return timings


def _best(scan: Callable[[str], object], text: str, calls: int) -> float:
    """The fewest seconds one call took, over a few runs of ``calls`` calls."""
    best = math.inf
    spent = 0.0
    for run in range(RUNS):
        start = time.perf_counter()
        for _ in range(calls):
            scan(text)
        took = time.perf_counter() - start
        best, spent = min(best, took / calls), spent + took
        if took > ENOUGH_SECONDS or (run and spent > SIZE_BUDGET_SECONDS):
            break
    return best


def _slope(timings: list[tuple[int, float]]) -> float:
    """The least-squares slope of log2(seconds) against log2(size)."""
    xs = [math.log2(size) for size, _ in timings]
    ys = [math.log2(max(seconds, 1e-9)) for _, seconds in timings]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
