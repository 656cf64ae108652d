"""Shortest work first: model work waits while fast work runs or is queued, and a quiet moment
after, never longer than its bound."""

from __future__ import annotations

import asyncio

from threadwise.jobs.fast_first import FastFirst


def test_model_work_waits_for_fast_work_and_a_quiet_moment() -> None:
    first = FastFirst(quiet_seconds=0.05, max_wait_seconds=60)

    async def scenario() -> None:
        await asyncio.wait_for(first.model_turn(), timeout=30)  # nothing fast: a moment
        with first.fast():
            waiting = asyncio.create_task(first.model_turn())
            for _ in range(10):  # it runs until it waits: for the fast work's end, no sooner
                await asyncio.sleep(0)
            assert first.busy and not waiting.done()
        assert first.busy  # ended this instant: another batch of a burst may follow
        await asyncio.wait_for(waiting, timeout=30)
        assert not first.busy

    asyncio.run(scenario())


def test_model_work_never_waits_past_its_bound() -> None:
    first = FastFirst(max_wait_seconds=0)

    async def scenario() -> None:
        with first.fast():
            await asyncio.wait_for(first.model_turn(), timeout=30)

    asyncio.run(scenario())


def test_model_work_waits_for_fast_work_queued_anywhere() -> None:
    first = FastFirst(quiet_seconds=0.01, max_wait_seconds=60)
    pending = [2, 1, 0]
    asked: list[int] = []

    async def fast_pending() -> int:
        asked.append(pending[0])
        return pending.pop(0)

    async def scenario() -> None:
        await asyncio.wait_for(first.model_turn(fast_pending), timeout=30)

    asyncio.run(scenario())
    assert asked == [2, 1, 0]
