from __future__ import annotations

from tests.clock import ManualClock
from threadwise.engines.remote.breaker import CircuitBreaker


def test_opens_after_failures_in_a_row_and_a_success_closes_it() -> None:
    clock = ManualClock(100.0)
    breaker = CircuitBreaker(failures=3, cooldown=10, clock=clock)
    assert breaker.failed("refused") is False
    breaker.succeeded()  # the count starts again
    assert not breaker.failed("refused") and not breaker.failed("refused")
    assert not breaker.open
    assert breaker.failed("connection refused") is True
    assert breaker.open and breaker.reason == "connection refused"
    assert breaker.failed("again") is False  # already open
    clock.now += 4
    assert breaker.next_probe() == 6
    clock.now += 7
    assert breaker.next_probe() == 0
    breaker.succeeded()
    assert not breaker.open and breaker.next_probe() == 0


def test_a_failed_probe_waits_a_whole_cooldown_again() -> None:
    clock = ManualClock(100.0)
    breaker = CircuitBreaker(failures=2, cooldown=5, clock=clock)
    assert breaker.trip("unreachable at start") is True
    clock.now += 5
    assert breaker.next_probe() == 0
    assert breaker.trip("still refused") is False
    assert breaker.next_probe() == 5 and breaker.reason == "still refused"
    breaker.succeeded()
    # Closed again, it takes a full run of failures to open.
    assert breaker.failed("x") is False and breaker.failed("x") is True
