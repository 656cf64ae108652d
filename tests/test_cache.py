"""The cache behind the result cache and thread memory: in the process and in Redis."""

from __future__ import annotations

import asyncio
import uuid

import redis

from scripts.cluster import REDIS_VARIABLE
from tests.conftest import service_url
from threadwise.cache import InProcessCache, RedisCache


def test_in_process_cache_keeps_the_most_recently_used() -> None:
    async def scenario() -> None:
        cache = InProcessCache(max_entries=2)
        await cache.put("a", {"v": 1}, 60)
        await cache.put("b", {"v": 2}, 60)
        assert await cache.get("a") == {"v": 1}  # a is now the most recent
        await cache.put("c", {"v": 3}, 60)
        assert await cache.get("b") is None
        assert await cache.get("a") == {"v": 1} and await cache.get("c") == {"v": 3}
        assert len(cache) == 2

    asyncio.run(scenario())


def test_in_process_cache_forgets_after_the_ttl_and_copies_values() -> None:
    async def scenario() -> None:
        now = [1000.0]
        cache = InProcessCache(max_entries=10, clock=lambda: now[0])
        value = {"items": [1]}
        await cache.put("k", value, 0.1)
        value["items"].append(2)
        got = await cache.get("k")
        assert got == {"items": [1]}
        got["items"].append(3)
        assert await cache.get("k") == {"items": [1]}
        now[0] += 0.099
        assert await cache.get("k") == {"items": [1]}
        now[0] += 0.001
        assert await cache.get("k") is None

    asyncio.run(scenario())


def test_redis_cache_round_trip_and_ttl() -> None:
    async def scenario() -> None:
        url, prefix = service_url(REDIS_VARIABLE), f"threadwise:test:{uuid.uuid4().hex}:"
        cache = RedisCache(url, prefix)
        await cache.put("k", {"results": [[{"content": "x"}]]}, 0.3)
        assert await cache.get("k") == {"results": [[{"content": "x"}]]}
        assert await cache.get("other") is None
        # Redis's clock cannot be moved: that Redis expires it in time is Redis's promise.
        with redis.Redis.from_url(url) as server:
            assert 0 < server.pttl(prefix + "k") <= 300
        cache.close()

    asyncio.run(scenario())


def test_redis_unavailable_is_a_miss() -> None:
    async def scenario() -> None:
        cache = RedisCache("redis://127.0.0.1:1/0", "p:")
        await cache.put("k", {"v": 1}, 60)
        assert await cache.get("k") is None
        cache.close()

    asyncio.run(scenario())
