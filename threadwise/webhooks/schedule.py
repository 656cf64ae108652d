"""When a failed webhook is tried again: Standard Webhooks' (and Svix's) schedule, which keeps
trying for a little over a day, so a receiver down for a day still gets its webhooks."""

from __future__ import annotations

import random
from collections.abc import Callable

# Before each attempt, counted from the failure of the one before: immediately, 5 s, 5 min,
# 30 min, 2 h, 5 h, 10 h, 10 h (27.6 h in all).
DELAYS: tuple[float, ...] = (0, 5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)


def next_delay(
    attempts_made: int,
    *,
    jitter: float = 0.0,
    uniform: Callable[[float, float], float] = random.uniform,
) -> float | None:
    """Seconds to wait before the next attempt, after ``attempts_made`` attempts; ``None``:
    give up. ``jitter`` (a fraction, such as 0.1) spreads retries of many webhooks that
    failed together."""
    if attempts_made < 0:
        raise ValueError(f"attempts_made counts attempts, so is 0 or more; got {attempts_made}.")
    if not 0 <= jitter < 1:
        raise ValueError(f"jitter is a fraction from 0 to below 1, got {jitter}.")
    if attempts_made >= len(DELAYS):
        return None
    delay = DELAYS[attempts_made]
    return delay * uniform(1 - jitter, 1 + jitter) if jitter and delay else delay
