from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from scripts.cluster import REDIS_VARIABLE
from tests.conftest import service_url
from threadwise.auth.ratelimit import InProcessRateLimiter, RateLimiter, RedisRateLimiter


@pytest.fixture(params=["in-process", "redis"])
def limiter(request: pytest.FixtureRequest) -> Iterator[RateLimiter]:
    """Each limiter, empty: in the process, and in the test Redis under a prefix of its own."""
    built: RateLimiter
    if request.param == "redis":
        built = RedisRateLimiter(service_url(REDIS_VARIABLE), prefix=f"test:{uuid.uuid4()}:")
    else:
        built = InProcessRateLimiter()
    yield built
    built.close()
