"""The one cache of what a replica read from the database: fresh for its time, then read
again; forgotten on a write; bounded."""

from __future__ import annotations

import asyncio
import threading

from tests.clock import ManualClock
from tests.conftest import until
from threadwise.ttl_cache import TtlCache


def test_a_value_is_fresh_for_its_seconds_then_stale() -> None:
    clock = ManualClock()
    cache: TtlCache[str, int] = TtlCache(5, clock=clock)
    cache.put("a", 1)
    clock.now = 4.9
    assert cache.get("a") == 1
    clock.now = 5.0
    assert cache.get("a") is None
    assert cache.peek("a") == 1  # stale, but still there


def test_replace_keeps_the_expiry_and_forget_drops_the_value() -> None:
    clock = ManualClock()
    cache: TtlCache[str, int] = TtlCache(5, clock=clock)
    cache.replace("a", 1)  # nothing to replace
    assert cache.peek("a") is None
    cache.put("a", 1)
    clock.now = 3
    cache.replace("a", 2)
    assert cache.get("a") == 2
    clock.now = 5
    assert cache.get("a") is None
    cache.forget("a")
    assert cache.peek("a") is None and len(cache) == 0


def test_the_first_stored_goes_first_when_full() -> None:
    cache: TtlCache[str, int] = TtlCache(5, max_entries=2, clock=ManualClock())
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 3)  # a key already there takes no room
    cache.put("c", 4)
    assert (cache.peek("a"), cache.peek("b"), cache.peek("c")) == (None, 2, 4)


def test_read_through_reads_once_while_fresh_and_keeps_none() -> None:
    clock = ManualClock()
    cache: TtlCache[str, int | None] = TtlCache(5, clock=clock)
    reads: list[str] = []

    def read() -> int | None:
        reads.append("read")
        return None

    for _ in range(2):
        assert asyncio.run(cache.read_through("a", read)) is None
    assert reads == ["read"]  # "no such thing" is an answer worth keeping too
    clock.now = 5
    asyncio.run(cache.read_through("a", read))
    assert reads == ["read", "read"]


def test_reads_of_one_key_at_once_are_one_read() -> None:
    cache: TtlCache[str, int] = TtlCache(5)
    reads: list[str] = []
    release = threading.Event()

    def read() -> int:
        reads.append("read")
        release.wait(30)
        return len(reads)

    def failing() -> int:
        reads.append("failed")
        release.wait(30)
        raise OSError("the database went away")

    async def burst() -> tuple[list[int], list[int | BaseException]]:
        together = asyncio.gather(*(cache.read_through("a", read) for _ in range(5)))
        await until(lambda: reads == ["read"])
        release.set()
        values = await together
        release.clear()
        # A failed read: its waiters each read for themselves.
        cache.clear()
        failed = asyncio.gather(
            cache.read_through("b", failing), cache.read_through("b", read), return_exceptions=True
        )
        await until(lambda: len(reads) == 2)
        release.set()
        return values, list(await failed)

    values, after_failure = asyncio.run(burst())
    assert values == [1] * 5
    assert isinstance(after_failure[0], OSError) and after_failure[1] == 3
    assert reads == ["read", "failed", "read"]
