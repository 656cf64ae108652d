"""The limiter in the process and in Redis (the ``limiter`` fixture gives each): same
algorithm, same answers."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest

from scripts.cluster import REDIS_VARIABLE
from tests.conftest import service_url
from threadwise.auth.ratelimit import InProcessRateLimiter, Quota, RateLimiter, RedisRateLimiter


def take(limiter: RateLimiter, *quotas: Quota) -> float:
    return asyncio.run(limiter.acquire(quotas))


def give_back(limiter: RateLimiter, *quotas: Quota) -> None:
    asyncio.run(limiter.release(quotas))


def test_a_burst_of_the_quota_then_a_wait(limiter: RateLimiter) -> None:
    quota = Quota("a", per_minute=6)
    assert [take(limiter, quota) for _ in range(6)] == [0.0] * 6
    wait = take(limiter, quota)
    assert 9.0 <= wait <= 10.0  # one request every 10 s once the burst is spent
    assert 0 < take(limiter, quota) <= wait  # a refusal takes nothing


@pytest.mark.parametrize(
    ("per_minute", "cost"), [(7, 1), (13, 1), (97, 1), (600, 1), (999_999, 142_857)]
)
def test_a_fresh_quota_admits_its_whole_burst(
    limiter: RateLimiter, per_minute: int, cost: int
) -> None:
    """60/N seconds is not exact in floats, nor in whole microseconds for N = 7: the whole
    burst must still fit in the window, to its last request, and then be spent."""
    quota = Quota(f"burst-{per_minute}", per_minute, cost)
    takes = per_minute // cost
    assert [take(limiter, quota) for _ in range(takes)] == [0.0] * takes
    # More than the clock can have refilled meanwhile: a tenth of the quota.
    assert take(limiter, Quota(quota.key, per_minute, max(cost, per_minute // 10))) > 0


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


def test_release_gives_back_what_was_taken(limiter: RateLimiter) -> None:
    quota = Quota("reserved", per_minute=2)
    assert take(limiter, quota) == take(limiter, quota) == 0.0
    assert take(limiter, quota) > 0
    give_back(limiter, quota)
    assert take(limiter, quota) == 0.0
    assert take(limiter, quota) > 0
    # Giving back what was never taken credits nothing: the bucket is only full.
    fresh = Quota("never-taken", per_minute=2)
    give_back(limiter, fresh, fresh)
    assert take(limiter, fresh) == take(limiter, fresh) == 0.0
    assert take(limiter, fresh) > 0


def test_concurrent_takes_never_exceed_the_quota(limiter: RateLimiter) -> None:
    quota = Quota("concurrent", per_minute=10)

    async def race() -> list[float]:
        return await asyncio.gather(*(limiter.acquire([quota]) for _ in range(50)))

    waits = asyncio.run(race())
    assert waits.count(0.0) == 10


# The clock of a machine that has been up for a while: 10^6 s, in nanoseconds.
UPTIME_NS = 1_000_000 * 10**9 + 123_456_789


@pytest.mark.parametrize("per_minute", [6, 7, 13, 97])
@pytest.mark.parametrize("start", [0, 1000 * 10**9, UPTIME_NS])
def test_in_process_a_whole_burst_in_one_instant(start: int, per_minute: int) -> None:
    """With float seconds, 7 takes of 60/7 at 1000.0 s ended 4.5e-13 s past the window, and
    the last of a fresh burst was refused (a Retry-After of 1 s)."""
    limiter = InProcessRateLimiter(clock=lambda: start)
    quota = Quota("b", per_minute)
    assert [take(limiter, quota) for _ in range(per_minute)] == [0.0] * per_minute
    wait = take(limiter, quota)
    assert 0 < wait <= 60 / per_minute and wait == pytest.approx(60 / per_minute)


@pytest.mark.parametrize("start", [0, UPTIME_NS, 2**62 + 1])
def test_in_process_time_is_exact(start: int) -> None:
    now = [start]
    limiter = InProcessRateLimiter(clock=lambda: now[0])
    quota = Quota("t", per_minute=6)
    assert [take(limiter, quota) for _ in range(6)] == [0.0] * 6
    assert take(limiter, quota) == 10.0  # exact: the clock is ours
    now[0] += 10 * 10**9 - 1
    assert 0 < take(limiter, quota) < 1e-6  # one nanosecond early: not yet, and not 0
    now[0] += 1
    assert take(limiter, quota) == 0.0
    assert take(limiter, quota) == 10.0


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
