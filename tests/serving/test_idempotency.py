"""Idempotency keys, in the process and in Redis (the test server of scripts/with-services.sh)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from scripts.cluster import REDIS_VARIABLE
from tests.conftest import service_url
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.serving.idempotency import (
    IdempotencyStore,
    InProcessIdempotencyStore,
    RedisIdempotencyStore,
    check_key,
)


@pytest.fixture(params=["in-process", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[IdempotencyStore]:
    built: IdempotencyStore
    if request.param == "redis":
        prefix = f"threadwise:test:{uuid.uuid4().hex}:"
        built = RedisIdempotencyStore(service_url(REDIS_VARIABLE), 60, prefix=prefix)
    else:
        built = InProcessIdempotencyStore(60, max_entries=100)
    yield built
    built.close()


def test_a_repeated_key_gets_the_stored_answer(store: IdempotencyStore) -> None:
    async def scenario() -> None:
        first = await store.claim("t:org", "k1", "fp", wait_seconds=1, lease_seconds=10)
        assert first.owner is not None and first.answer is None
        await store.complete(first, {"results": [[{"content": "hola"}]]})
        again = await store.claim("t:org", "k1", "fp", wait_seconds=1, lease_seconds=10)
        assert again.answer == {"results": [[{"content": "hola"}]]} and again.owner is None

    asyncio.run(scenario())


def found_running(store: IdempotencyStore, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Set once a claim has found its key held by a running request (and so waits)."""
    found = asyncio.Event()
    attempt = store._try_claim

    async def observed(*args: Any) -> tuple[str, Any | None] | None:
        state = await attempt(*args)
        if state is not None and state[1] is None:
            found.set()
        return state

    monkeypatch.setattr(store, "_try_claim", observed)
    return found


def test_a_second_request_waits_for_the_first(
    store: IdempotencyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        first = await store.claim("t:org", "k2", "fp", wait_seconds=1, lease_seconds=10)
        waiting = found_running(store, monkeypatch)
        second = asyncio.ensure_future(
            store.claim("t:org", "k2", "fp", wait_seconds=30, lease_seconds=10)
        )
        await waiting.wait()
        await store.complete(first, {"results": []})
        assert (await second).answer == {"results": []} and (await second).waited

    asyncio.run(scenario())


def test_released_key_is_claimed_by_the_waiting_request(
    store: IdempotencyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        first = await store.claim("t:org", "k3", "fp", wait_seconds=1, lease_seconds=10)
        waiting = found_running(store, monkeypatch)
        second = asyncio.ensure_future(
            store.claim("t:org", "k3", "fp", wait_seconds=30, lease_seconds=10)
        )
        await waiting.wait()
        await store.release(first)
        claimed = await second
        assert claimed.owner is not None and claimed.owner != first.owner and claimed.waited

    asyncio.run(scenario())


def test_a_key_reused_with_another_request_is_refused(store: IdempotencyStore) -> None:
    async def scenario() -> None:
        first = await store.claim("t:org", "k4", "fp-a", wait_seconds=1, lease_seconds=10)
        with pytest.raises(ServiceError) as running:
            await store.claim("t:org", "k4", "fp-b", wait_seconds=1, lease_seconds=10)
        await store.complete(first, {"results": []})
        with pytest.raises(ServiceError) as done:
            await store.claim("t:org", "k4", "fp-b", wait_seconds=1, lease_seconds=10)
        for caught in (running, done):
            assert caught.value.code is ErrorCode.IDEMPOTENCY_KEY_REUSED
            assert caught.value.code.http_status == 422
            assert "different request" in caught.value.message

    asyncio.run(scenario())


def test_organizations_do_not_share_keys(store: IdempotencyStore) -> None:
    async def scenario() -> None:
        mine = await store.claim("t:org-a", "k5", "fp", wait_seconds=1, lease_seconds=10)
        await store.complete(mine, {"results": []})
        theirs = await store.claim("t:org-b", "k5", "other", wait_seconds=1, lease_seconds=10)
        assert theirs.owner is not None

    asyncio.run(scenario())


def test_a_claim_expires_with_its_lease(store: IdempotencyStore) -> None:
    async def scenario() -> None:
        await store.claim("t:org", "k6", "fp", wait_seconds=1, lease_seconds=0.2)
        later = await store.claim("t:org", "k6", "fp", wait_seconds=2, lease_seconds=10)
        assert later.owner is not None  # the first holder died without an answer

    asyncio.run(scenario())


def test_a_renewed_claim_outlives_its_first_lease(store: IdempotencyStore) -> None:
    async def scenario() -> None:
        first = await store.claim("t:org", "k7", "fp", wait_seconds=1, lease_seconds=0.3)
        assert await store.renew(first, 5)
        await asyncio.sleep(0.5)
        with pytest.raises(ServiceError) as held:
            await store.claim("t:org", "k7", "fp", wait_seconds=0.1, lease_seconds=10)
        assert held.value.code is ErrorCode.REQUEST_TIMEOUT
        # Once answered, or in another owner's hands, a claim is not renewed.
        await store.complete(first, {"results": []})
        assert not await store.renew(first, 5)
        lapsed = await store.claim("t:org", "k8", "fp", wait_seconds=1, lease_seconds=0.1)
        await asyncio.sleep(0.3)
        taken = await store.claim("t:org", "k8", "fp", wait_seconds=1, lease_seconds=10)
        assert taken.owner is not None
        assert not await store.renew(lapsed, 5)

    asyncio.run(scenario())


def test_waiting_is_bounded() -> None:
    async def scenario() -> None:
        store = InProcessIdempotencyStore(60, 10)
        await store.claim("t:org", "k", "fp", wait_seconds=1, lease_seconds=60)
        with pytest.raises(ServiceError) as caught:
            await store.claim("t:org", "k", "fp", wait_seconds=0.1, lease_seconds=60)
        assert caught.value.code is ErrorCode.REQUEST_TIMEOUT

    asyncio.run(scenario())


def test_keys_are_checked() -> None:
    assert check_key(" abc ", "Idempotency-Key") == "abc"
    with pytest.raises(ServiceError) as caught:
        check_key("x" * 300, "The Idempotency-Key header")
    assert "Idempotency-Key" in caught.value.message
