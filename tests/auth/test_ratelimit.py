"""The limiter in the process and in Redis: same algorithm, same answers."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterator

import pytest

from tests.conftest import REDIS_VARIABLE, service_url
from threadwise.auth.ratelimit import InProcessRateLimiter, Quota, RateLimiter, RedisRateLimiter


@pytest.fixture(params=["in-process", "redis"])
def limiter(request: pytest.FixtureRequest) -> Iterator[RateLimiter]:
    built: RateLimiter
    if request.param == "redis":
        built = RedisRateLimiter(service_url(REDIS_VARIABLE), prefix=f"test:{uuid.uuid4()}:")
    else:
        built = InProcessRateLimiter()
    yield built
    built.close()


def take(limiter: RateLimiter, *quotas: Quota) -> float:
    return asyncio.run(limiter.acquire(quotas))


def peek(limiter: RateLimiter, *quotas: Quota) -> float:
    return asyncio.run(limiter.check(quotas))


def test_a_burst_of_the_quota_then_a_wait(limiter: RateLimiter) -> None:
    quota = Quota("a", per_minute=6)
    assert [take(limiter, quota) for _ in range(6)] == [0.0] * 6
    wait = take(limiter, quota)
    assert 9.0 <= wait <= 10.0  # one request every 10 s once the burst is spent
    assert abs(peek(limiter, quota) - wait) < 0.5


def test_costs(limiter: RateLimiter) -> None:
    characters = Quota("chars", per_minute=1000, cost=600)
    assert take(limiter, characters) == 0.0
    wait = take(limiter, characters)
    assert 11.0 <= wait <= 12.5  # 200 more characters come free after 12 s
    assert take(limiter, Quota("chars", per_minute=1000, cost=300)) == 0.0


def test_a_request_larger_than_the_quota_waits_for_a_full_bucket(limiter: RateLimiter) -> None:
    huge = Quota("huge", per_minute=100, cost=10_000)
    assert take(limiter, huge) == 0.0
    assert take(limiter, huge) > 55


def test_all_or_nothing(limiter: RateLimiter) -> None:
    requests = Quota("r", per_minute=10)
    characters = Quota("c", per_minute=100, cost=100)
    assert take(limiter, requests, characters) == 0.0
    # The characters are spent, so the request is refused, and its request is not counted.
    assert take(limiter, requests, characters) > 0
    for _ in range(9):
        assert take(limiter, requests) == 0.0
    assert take(limiter, requests) > 0


def test_keys_are_independent(limiter: RateLimiter) -> None:
    assert take(limiter, Quota("acme:org-1", per_minute=1)) == 0.0
    assert take(limiter, Quota("acme:org-1", per_minute=1)) > 0
    assert take(limiter, Quota("acme:org-2", per_minute=1)) == 0.0
    assert take(limiter, Quota("globex:org-1", per_minute=1)) == 0.0


def test_check_takes_nothing(limiter: RateLimiter) -> None:
    quota = Quota("peek", per_minute=1)
    for _ in range(5):
        assert peek(limiter, quota) == 0.0
    assert take(limiter, quota) == 0.0
    assert peek(limiter, quota) > 0


def test_in_process_buckets_refill_with_time() -> None:
    now = [1000.0]
    limiter = InProcessRateLimiter(clock=lambda: now[0])
    quota = Quota("t", per_minute=2)
    assert take(limiter, quota) == take(limiter, quota) == 0.0
    assert take(limiter, quota) == 30.0  # exact: the clock is ours
    now[0] += 30.0
    assert take(limiter, quota) == 0.0


def test_redis_limits_are_shared_between_replicas() -> None:
    url, prefix = service_url(REDIS_VARIABLE), f"test:{uuid.uuid4()}:"
    first, second = RedisRateLimiter(url, prefix), RedisRateLimiter(url, prefix)
    quota = Quota("shared", per_minute=2)
    assert take(first, quota) == 0.0
    assert take(second, quota) == 0.0
    assert take(first, quota) > 0
    assert take(second, quota) > 0
    first.close()
    second.close()


def test_unreachable_redis_admits_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    limiter = RedisRateLimiter("redis://127.0.0.1:9/0")
    with caplog.at_level(logging.WARNING, logger="threadwise.auth"):
        assert take(limiter, Quota("x", per_minute=1)) == 0.0
        assert take(limiter, Quota("x", per_minute=1)) == 0.0
    warnings = [r for r in caplog.records if "Redis is unavailable" in r.getMessage()]
    assert len(warnings) == 1  # once, not once per request
    limiter.close()
