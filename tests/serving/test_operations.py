"""Operations.run around stand-in superpowers: idempotency, the result cache, shutdown."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.conftest import minimal_body
from threadwise.cache import InProcessCache
from threadwise.deadlines import DeadlinePolicy
from threadwise.errors import ServiceError
from threadwise.metrics import Metrics
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.serving import operations as operations_module
from threadwise.serving.idempotency import InProcessIdempotencyStore
from threadwise.serving.lifecycle import Lifecycle
from threadwise.serving.operations import Operations
from threadwise.serving.records import RequestRecord

LIMITS = PayloadLimits(max_conversations=50, max_messages=2000, max_message_chars=32_000)


class StandIn:
    """Counts its calls; answers after ``delay`` with ``engine``, or raises ``error``."""

    deadlines = DeadlinePolicy(base=5, per_thousand_characters=0, ceiling=5)

    def __init__(self, engine: str = "apertium:eng-spa", delay: float = 0.0) -> None:
        self.calls = 0
        self.engine = engine
        self.delay = delay
        self.error: ServiceError | None = None

    async def __call__(
        self, body: MessageBody, *_: Any, scope: str = "", custom: Any = ()
    ) -> list[list[ResponseItem]]:
        """As either superpower: summarize's ``on_partial``, translate's terms ignored."""
        self.calls += 1
        await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return [[ResponseItem(content=f"answer {self.calls}", engine=self.engine)]]


def operations(power: StandIn, cache_ttl: float = 60) -> Operations:
    return Operations(
        summarize=power,  # type: ignore[arg-type]
        translate=power,  # type: ignore[arg-type]
        lifecycle=Lifecycle(),
        idempotency=InProcessIdempotencyStore(60, 100),
        results=InProcessCache(100),
        results_ttl_seconds=cache_ttl,
        version="v1",
        metrics=Metrics(),
    )


def body(content: str = "My parcel 7781 is late.", org: str = "org-1") -> MessageBody:
    data = minimal_body(context={"organizationId": org})
    data["request"]["scope"]["conversations"][0]["messages"][0]["content"] = content
    return parse_message_body(data, LIMITS)


async def run(ops: Operations, b: MessageBody, key: str | None = None, tenant: str = "t") -> Any:
    record = RequestRecord.start("rest")
    results = await ops.run("translate", b, tenant=tenant, record=record, idempotency_key=key)
    return results[0][0].content, record


def test_concurrent_requests_with_one_key_run_once() -> None:
    async def scenario() -> None:
        power = StandIn(delay=0.2)
        ops = operations(power, cache_ttl=0)
        (a, first), (b, second) = await asyncio.gather(
            run(ops, body(), "key-1"), run(ops, body(), "key-1")
        )
        assert power.calls == 1 and a == b == "answer 1"
        assert {first.idempotency, second.idempotency} == {"new", "replayed"}

    asyncio.run(scenario())


def test_a_key_is_held_while_its_work_outlasts_the_lease(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Held a short lease at a time (a killed replica lets go soon), renewed while it runs.
    monkeypatch.setattr(operations_module, "LEASE_SECONDS", 0.6)
    power = StandIn(delay=2.0)
    ops = operations(power)

    async def scenario() -> tuple[Any, Any]:
        first = asyncio.ensure_future(run(ops, body(), key="slow"))
        await asyncio.sleep(1.0)  # past the first lease (renewed every 0.2 s)
        return await asyncio.gather(first, run(ops, body(), key="slow"))

    (first, _), (second, record) = asyncio.run(scenario())
    assert power.calls == 1 and first == second == "answer 1"
    assert record.idempotency == "replayed"


def test_a_retryable_failure_is_not_stored_but_a_final_one_is() -> None:
    async def scenario() -> None:
        power = StandIn()
        ops = operations(power, cache_ttl=0)
        power.error = ServiceError(ErrorCode.OVERLOADED, "busy", retry_after=1)
        with pytest.raises(ServiceError):
            await run(ops, body(), "key-2")
        power.error = None
        assert (await run(ops, body(), "key-2"))[0] == "answer 2"  # the retry did the work
        power.error = ServiceError(ErrorCode.UNSUPPORTED_LANGUAGE, "no Klingon")
        for _ in range(2):
            with pytest.raises(ServiceError) as caught:
                await run(ops, body("other"), "key-3")
            assert caught.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
        assert power.calls == 3  # the final error was replayed

    asyncio.run(scenario())


def test_a_key_reused_with_another_body_is_422() -> None:
    async def scenario() -> None:
        ops = operations(StandIn())
        await run(ops, body("one"), "key-4")
        with pytest.raises(ServiceError) as caught:
            await run(ops, body("two"), "key-4")
        assert caught.value.code is ErrorCode.IDEMPOTENCY_KEY_REUSED

    asyncio.run(scenario())


def test_the_result_cache_is_per_organization_and_content() -> None:
    async def scenario() -> None:
        power = StandIn()
        ops = operations(power)
        first, record = await run(ops, body())
        again, cached = await run(ops, body())
        assert first == again == "answer 1" and cached.cache == "hit" and record.cache is None
        assert (await run(ops, body(org="org-2")))[0] == "answer 2"
        assert (await run(ops, body("Something else")))[0] == "answer 3"

    asyncio.run(scenario())


def test_a_fallback_answer_is_not_cached() -> None:
    async def scenario() -> None:
        power = StandIn(engine="apertium:eng-spa (fast fallback: timeout)")
        ops = operations(power)
        await run(ops, body())
        await run(ops, body())
        assert power.calls == 2

    asyncio.run(scenario())


def test_no_new_work_while_draining() -> None:
    async def scenario() -> None:
        power = StandIn()
        ops = operations(power)
        ops.lifecycle.draining = True
        with pytest.raises(ServiceError) as caught:
            await run(ops, body())
        assert caught.value.code is ErrorCode.OVERLOADED and power.calls == 0

    asyncio.run(scenario())
