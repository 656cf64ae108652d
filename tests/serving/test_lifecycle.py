from __future__ import annotations

import asyncio

import pytest

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.serving.lifecycle import Lifecycle


def test_drain_refuses_new_work_and_waits_for_work_in_flight() -> None:
    async def scenario() -> None:
        lifecycle = Lifecycle()
        hooked: list[float] = []

        async def hook(grace: float) -> None:
            hooked.append(grace)

        lifecycle.on_shutdown(hook)
        finished: list[str] = []

        async def work() -> None:
            async with lifecycle.working():
                await asyncio.sleep(0.2)
                finished.append("work")

        running = asyncio.ensure_future(work())
        await asyncio.sleep(0.05)
        assert lifecycle.in_flight == 1
        draining = asyncio.ensure_future(lifecycle.drain(5))
        await asyncio.sleep(0.01)
        with pytest.raises(ServiceError) as caught:
            lifecycle.admit()
        assert caught.value.code is ErrorCode.OVERLOADED and caught.value.retry_after
        assert caught.value.reason == "draining"
        assert await draining is True
        assert finished == ["work"] and hooked == [5]
        await running

    asyncio.run(scenario())


def test_drain_gives_up_after_the_grace_period() -> None:
    async def scenario() -> None:
        lifecycle = Lifecycle()
        release = asyncio.Event()

        async def stuck() -> None:
            async with lifecycle.working():
                await release.wait()

        running = asyncio.ensure_future(stuck())
        await asyncio.sleep(0.01)
        assert await lifecycle.drain(0.1) is False
        release.set()
        await running

    asyncio.run(scenario())


def test_a_hook_can_be_unregistered() -> None:
    async def scenario() -> None:
        lifecycle = Lifecycle()
        called: list[int] = []

        async def hook(_: float) -> None:
            called.append(1)

        unregister = lifecycle.on_shutdown(hook)
        unregister()
        await lifecycle.drain(0.1)
        assert called == []

    asyncio.run(scenario())
