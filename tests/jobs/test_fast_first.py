"""Shortest work first: model work waits while fast work runs, then a quiet moment, and never
longer than its bound."""

from __future__ import annotations

import asyncio

from tests.clock import ManualClock
from threadwise.jobs.fast_first import FastFirst


def test_model_work_waits_for_fast_work_and_a_quiet_moment() -> None:
    clock = ManualClock()
    first = FastFirst(quiet_seconds=0.25, max_wait_seconds=60, clock=clock)

    async def scenario() -> list[str]:
        happened: list[str] = []
        assert not first.busy
        await first.model_turn()  # nothing fast ran: at once
        happened.append("idle turn")
        with first.fast():
            waiting = asyncio.create_task(first.model_turn())
            await asyncio.sleep(0)
            assert first.busy and not waiting.done()
            happened.append("fast ran")
        await asyncio.sleep(0)
        assert not waiting.done()  # ended this instant: another batch may follow
        clock.now += 0.25
        with first.fast():  # another one did: the quiet moment starts again
            pass
        clock.now += 0.25  # and passes
        await asyncio.wait_for(waiting, timeout=30)
        happened.append("model turn")
        return happened

    assert asyncio.run(scenario()) == ["idle turn", "fast ran", "model turn"]


def test_model_work_never_waits_past_its_bound() -> None:
    first = FastFirst(max_wait_seconds=0)

    async def scenario() -> None:
        with first.fast():
            await asyncio.wait_for(first.model_turn(), timeout=30)

    asyncio.run(scenario())
