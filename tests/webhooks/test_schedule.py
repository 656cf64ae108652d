"""The retry schedule: immediately, then ever longer waits, for a little over a day."""

from __future__ import annotations

import pytest

from threadwise.webhooks.schedule import DELAYS, next_delay


def test_the_schedule_spans_about_a_day_then_gives_up() -> None:
    delays = []
    made = 0
    while (delay := next_delay(made)) is not None:
        delays.append(delay)
        made += 1
    assert delays[0] == 0 and delays == sorted(delays)
    assert len(delays) == len(DELAYS) == 8
    assert 24 * 3600 <= sum(delays) <= 28 * 3600


def test_jitter_spreads_within_its_fraction() -> None:
    assert next_delay(4, jitter=0.1, uniform=lambda low, high: low) == pytest.approx(0.9 * 7200)
    assert next_delay(4, jitter=0.1, uniform=lambda low, high: high) == pytest.approx(1.1 * 7200)
    assert next_delay(0, jitter=0.1) == 0  # the first attempt is never put off
    assert next_delay(len(DELAYS), jitter=0.1) is None


def test_nonsense_is_refused() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        next_delay(-1)
    with pytest.raises(ValueError, match="fraction"):
        next_delay(1, jitter=1.5)
