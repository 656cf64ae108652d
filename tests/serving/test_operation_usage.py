"""What Operations.run counts in an organization's usage, and how its monthly quota refuses a
request before any work: around stand-in superpowers whose work runs on a queue's thread."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import minimal_body
from tests.serving.test_operation_policies import Policies
from tests.serving.test_operations import LIMITS, StandIn, operations
from threadwise.auth.clients import ClientRegistry
from threadwise.auth.credentials import SecretHasher
from threadwise.db.database import Database
from threadwise.engines.metering import charge
from threadwise.errors import ServiceError
from threadwise.organizations.policies import OrganizationPolicy
from threadwise.organizations.usage import Counts, UsageStore
from threadwise.payload import parse_message_body
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.serving.operations import Operation, Operations
from threadwise.serving.records import RequestRecord
from threadwise.work_queue import Scheduler

NOW = datetime(2026, 11, 24, 18, 0, tzinfo=UTC)
NOVEMBER = (date(2026, 11, 1), date(2026, 11, 30))
CHARACTERS = 51  # minimal_body's two messages


class Engine(StandIn):
    """A superpower spending 120 prompt and 30 completion tokens per answer, on a queue's
    thread, as the superpowers run their engines; a summary's answer is one list of items."""

    def __init__(self, queue: Scheduler, summary: bool) -> None:
        super().__init__()
        self.queue = queue
        self.summary = summary

    async def __call__(  # type: ignore[override]  # a summary's items
        self, body: MessageBody, *_: Any, scope: str = "", custom: Any = ()
    ) -> list[list[ResponseItem]] | list[ResponseItem]:
        await self.queue.run(lambda: charge(120, 30))
        results = await super().__call__(body)
        return results[0] if self.summary else results


class Powers:
    def __init__(self, queue: Scheduler) -> None:
        self.summarize = Engine(queue, summary=True)
        self.translate = Engine(queue, summary=False)

    @property
    def calls(self) -> int:
        return self.summarize.calls + self.translate.calls


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    built = Database(f"sqlite:///{tmp_path / 'usage.db'}")
    built.upgrade()
    ClientRegistry(built, SecretHasher()).create("acme", ["org-1"], "usage tests")  # the tenant
    yield built
    built.close()


@pytest.fixture
def queue() -> Iterator[Scheduler]:
    built = Scheduler(10, "stand-in", typical_seconds=(0.01, 0.01))
    yield built
    built.shutdown()


@pytest.fixture
def usage(database: Database) -> Iterator[UsageStore]:
    store = UsageStore(database, now=lambda: NOW)
    yield store
    store.close()


def built(
    queue: Scheduler, usage: UsageStore, quota: int | None = None, cache_ttl: float = 0
) -> tuple[Operations, Powers]:
    powers = Powers(queue)
    ops = operations(powers.summarize, cache_ttl=cache_ttl)
    ops.translate = powers.translate  # type: ignore[assignment]
    ops.usage = usage
    ops.policies = Policies(OrganizationPolicy(monthly_characters=quota))  # type: ignore[assignment]
    return ops, powers


def body(**settings: Any) -> MessageBody:
    return parse_message_body(minimal_body(settings=settings), LIMITS)


def run(
    ops: Operations,
    request: MessageBody,
    operation: Operation = "summarize",
    key: str | None = None,
) -> RequestRecord:
    return asyncio.run(run_async(ops, request, operation, key))


async def run_async(
    ops: Operations,
    request: MessageBody,
    operation: Operation = "summarize",
    key: str | None = None,
) -> RequestRecord:
    record = RequestRecord.start("rest")
    await ops.run(operation, request, tenant="acme", record=record, idempotency_key=key)
    return record


def used(usage: UsageStore, operation: str) -> Counts:
    return usage.read("acme", "org-1", *NOVEMBER).of(operation)


def test_an_answered_request_counts_its_characters_and_tokens(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, _ = built(queue, usage)
    run(ops, body())
    run(ops, body())
    assert used(usage, "summarize") == Counts(2, 2 * CHARACTERS, 240, 60)
    assert used(usage, "translate") == Counts()


def test_a_translation_counts_its_characters_once_per_target(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, _ = built(queue, usage)
    run(ops, body(targetLanguages=["es", "fr", "de"]), "translate")
    run(ops, body(overrideOutputLanguage="es"), "translate")  # one target
    assert used(usage, "translate") == Counts(2, 4 * CHARACTERS, 240, 60)


def test_a_failed_request_counts_nothing(queue: Scheduler, usage: UsageStore) -> None:
    ops, powers = built(queue, usage)
    powers.summarize.error = ServiceError(ErrorCode.UNSUPPORTED_LANGUAGE, "no Klingon")
    with pytest.raises(ServiceError):
        run(ops, body())
    assert usage.read("acme", "org-1", *NOVEMBER).days == ()


def test_answers_from_the_cache_or_an_earlier_request_spend_no_tokens(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, powers = built(queue, usage, cache_ttl=60)
    assert run(ops, body()).cache is None
    assert run(ops, body()).cache == "hit"
    run(ops, body(summaryFormat="bullets"), key="k1")
    assert run(ops, body(summaryFormat="bullets"), key="k1").idempotency == "replayed"
    assert powers.calls == 2
    # The replay is the request answered before, and counted then.
    assert used(usage, "summarize") == Counts(3, 3 * CHARACTERS, 240, 60)


def test_a_request_over_the_quota_is_refused_before_any_work(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, powers = built(queue, usage, quota=3 * CHARACTERS)
    run(ops, body(targetLanguages=["es", "fr"]), "translate")  # 102 of 153
    with pytest.raises(ServiceError) as caught:
        run(ops, body(targetLanguages=["es", "fr"]), "translate")  # 204 > 153
    refusal = caught.value
    assert refusal.code is ErrorCode.QUOTA_EXCEEDED and refusal.code.http_status == 429
    assert not refusal.code.retryable
    assert "has used 102 of its 153 characters this month (UTC)" in refusal.message
    assert "this request needs 102 more" in refusal.message
    assert "starts again on 2026-12-01" in refusal.message
    assert refusal.retry_after == (6 * 24 + 6) * 3600  # to midnight UTC, 1 December
    assert refusal.reason == "quota_exceeded"
    assert powers.calls == 1
    run(ops, body())  # 51 more: exactly the quota
    assert usage.read("acme", "org-1", *NOVEMBER).total.characters == 3 * CHARACTERS


def test_parallel_requests_never_take_the_organization_past_its_quota(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, powers = built(queue, usage, quota=3 * CHARACTERS)

    async def ten() -> list[Any]:
        return await asyncio.gather(
            *(
                ops.run("summarize", body(), tenant="acme", record=RequestRecord.start("rest"))
                for _ in range(10)
            ),
            return_exceptions=True,
        )

    outcomes = asyncio.run(ten())
    refused = [o for o in outcomes if isinstance(o, ServiceError)]
    assert len(refused) == 7 and powers.calls == 3
    assert all(r.code is ErrorCode.QUOTA_EXCEEDED for r in refused)
    assert usage.read("acme", "org-1", *NOVEMBER).total.characters == 3 * CHARACTERS


def test_failed_and_cancelled_requests_let_their_characters_go(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, powers = built(queue, usage, quota=CHARACTERS)  # one request's
    powers.summarize.error = ServiceError(ErrorCode.OVERLOADED, "busy", retry_after=1)
    with pytest.raises(ServiceError):
        run(ops, body())
    powers.summarize.error = None
    powers.summarize.delay = 60

    async def cancelled() -> None:
        running = asyncio.ensure_future(run_async(ops, body()))
        while powers.calls < 2:  # at work, its characters held
            await asyncio.sleep(0.01)
        with pytest.raises(ServiceError) as refused:
            await run_async(ops, body())
        assert refused.value.code is ErrorCode.QUOTA_EXCEEDED
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(cancelled())
    powers.summarize.delay = 0
    run(ops, body())  # the whole quota is free again
    assert usage.read("acme", "org-1", *NOVEMBER).total == Counts(1, CHARACTERS, 120, 30)


def test_an_answer_given_before_is_given_again_once_the_quota_is_spent_and_not_charged(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, powers = built(queue, usage, quota=CHARACTERS)
    assert run(ops, body(), key="k1").idempotency == "new"
    with pytest.raises(ServiceError) as refused:
        run(ops, body(summaryFormat="bullets"), key="k2")  # the quota is spent
    assert refused.value.code is ErrorCode.QUOTA_EXCEEDED
    assert run(ops, body(), key="k1").idempotency == "replayed"
    assert powers.calls == 1
    assert usage.read("acme", "org-1", *NOVEMBER).total == Counts(1, CHARACTERS, 120, 30)


def test_a_key_refused_for_the_quota_is_not_kept_with_the_refusal(
    queue: Scheduler, usage: UsageStore
) -> None:
    ops, powers = built(queue, usage, quota=CHARACTERS - 1)
    with pytest.raises(ServiceError):
        run(ops, body(), key="k1")
    larger = Policies(OrganizationPolicy(monthly_characters=CHARACTERS))
    ops.policies = larger  # type: ignore[assignment]
    assert run(ops, body(), key="k1").idempotency == "new"  # done now, not the refusal again
    assert powers.calls == 1


def test_a_request_larger_than_the_quota_says_so(queue: Scheduler, usage: UsageStore) -> None:
    ops, powers = built(queue, usage, quota=CHARACTERS - 1)
    with pytest.raises(ServiceError) as caught:
        run(ops, body())
    assert caught.value.code is ErrorCode.QUOTA_EXCEEDED
    message = caught.value.message
    assert (
        "needs 51 characters, more than the monthly quota of organization 'org-1' (50)" in message
    )
    assert caught.value.retry_after is None  # waiting would not help
    assert powers.calls == 0


def test_a_quota_that_cannot_be_checked_refuses(
    queue: Scheduler, usage: UsageStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops, powers = built(queue, usage, quota=1000)

    def unreadable(*_: Any) -> Any:
        raise ConnectionError("the database is away")

    monkeypatch.setattr(usage.database, "session", unreadable)
    with pytest.raises(ServiceError) as caught:
        run(ops, body())
    assert caught.value.code is ErrorCode.PROCESSING_FAILED
    assert "usage could not be read" in caught.value.message
    assert powers.calls == 0
