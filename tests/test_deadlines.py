"""A request's deadline: time left, cancellation, and the deadline a request's size earns."""

from __future__ import annotations

import pytest

from tests.clock import ManualClock
from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


def test_time_left_runs_down_with_the_clock() -> None:
    clock = ManualClock(100.0)
    deadline = Deadline(5, clock)
    assert deadline.remaining() == 5
    clock.now += 2
    assert deadline.remaining() == 3
    assert not deadline.stop_requested()
    deadline.check()  # nothing to raise yet


def test_a_passed_deadline_stops_the_work_with_a_timeout() -> None:
    clock = ManualClock(100.0)
    deadline = Deadline(1.5, clock)
    clock.now += 1.5
    assert deadline.stop_requested()
    with pytest.raises(ServiceError) as raised:
        deadline.check()
    assert raised.value.code is ErrorCode.REQUEST_TIMEOUT
    assert "1.5 s deadline" in raised.value.message


def test_cancelling_stops_the_work_before_the_deadline() -> None:
    deadline = Deadline(60, ManualClock(100.0))
    deadline.cancel()
    assert deadline.stop_requested()
    with pytest.raises(ServiceError) as raised:
        deadline.check()
    assert raised.value.code is ErrorCode.REQUEST_CANCELLED


def test_the_deadline_grows_with_the_request_up_to_the_ceiling() -> None:
    policy = DeadlinePolicy(base=10, per_thousand_characters=2, ceiling=30)
    assert policy.seconds(0) == 10
    assert policy.seconds(5000) == 20
    assert policy.seconds(1_000_000) == 30


def test_a_fixed_deadline_ignores_the_size() -> None:
    policy = DeadlinePolicy(base=10, per_thousand_characters=2, ceiling=30, fixed=7)
    assert policy.seconds(0) == policy.seconds(1_000_000) == 7
    started = policy.start(1_000_000)
    assert started.seconds == 7 and 0 < started.remaining() <= 7
