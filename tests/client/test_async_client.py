"""threadwise.client against a real server on 127.0.0.1: tokens, REST, WebSocket, timeouts,
and the blocking wrapper. Fast-tier translations only: no model time."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tests.conftest import LiveServer, eventually, minimal_body
from threadwise.client import SyncClient, ThreadwiseClient, ThreadwiseError
from threadwise.services import Services

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def english(*contents: str) -> dict[str, Any]:
    body = minimal_body(settings={"translationMode": "fast", "overrideOutputLanguage": "es"})
    body["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c", "content": c} for c in contents
    ]
    return body


BODY = english("My parcel 7781 has not arrived yet.")


def client(live: LiveServer, **options: Any) -> ThreadwiseClient:
    return ThreadwiseClient(
        live.url, client_id=live.client_id, client_secret=live.client_secret, **options
    )


def content(envelope: dict[str, Any]) -> str:
    text: str = envelope["message"]["results"][0]["response"][0]["content"]
    return text


async def test_token_is_fetched_once_and_reused(live_server: LiveServer) -> None:
    async with client(live_server) as threadwise:
        token = await threadwise.token()
        assert token == await threadwise.token()
        assert token != await threadwise.token(refresh=True)


async def test_wrong_secret_is_an_oauth_error(live_server: LiveServer) -> None:
    async with ThreadwiseClient(
        live_server.url, client_id=live_server.client_id, client_secret="tws_wrong"
    ) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.token()
    assert refused.value.code == "invalid_client" and refused.value.status == 401


async def test_rest_and_websocket_give_the_same_answer(live_server: LiveServer) -> None:
    async with client(live_server) as threadwise:
        over_rest = await threadwise.call("translate", BODY)
        async with threadwise.connect() as socket:
            over_socket = await socket.translate(BODY)
    assert content(over_rest) == content(over_socket)
    assert "7781" in content(over_rest)
    assert over_socket["correlationId"] == over_socket["headers"]["correlationId"]


async def test_rest_errors_carry_code_and_status(live_server: LiveServer) -> None:
    body = minimal_body(context={"organizationId": "org-globex"})
    async with client(live_server) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.call("summarize", body)
    assert refused.value.code == "FORBIDDEN_ORGANIZATION" and refused.value.status == 403
    assert refused.value.reply["state"] == "error"


async def test_bad_token_refuses_the_socket_with_its_code(live_server: LiveServer) -> None:
    async with ThreadwiseClient(live_server.url, token="not.a.token") as threadwise:
        for transport in ("subprotocol", "query"):
            with pytest.raises(ThreadwiseError) as refused:
                async with threadwise.connect(transport=transport):
                    pass
            assert refused.value.code == "INVALID_TOKEN" and refused.value.status == 401


async def test_concurrent_requests_are_matched_to_their_callers(live_server: LiveServer) -> None:
    numbers = range(4100, 4112)
    async with client(live_server) as threadwise, threadwise.connect() as socket:
        answers = await asyncio.gather(
            *(socket.translate(english(f"Order {n} is late.")) for n in numbers)
        )
    for number, answer in zip(numbers, answers, strict=True):
        assert str(number) in content(answer)


async def test_timeout_cancels_the_request_on_the_server(
    live_server: LiveServer, services: Services
) -> None:
    release = threading.Event()
    blocker = services.llm_queue.submit(release.wait)  # the summary waits behind it
    try:
        async with client(live_server) as threadwise, threadwise.connect() as socket:
            with pytest.raises(TimeoutError):
                await socket.summarize(minimal_body(), timeout=0.5)
            # The cancel took it out of the queue (the blocker does not count).
            await asyncio.to_thread(
                eventually, lambda: services.llm_queue.depth == 0, 10, "the summary stayed queued"
            )
            assert "7781" in content(await socket.translate(BODY))  # the socket goes on
    finally:
        release.set()
        blocker.result(timeout=30)


def test_sync_client_over_rest_and_websocket(live_server: LiveServer) -> None:
    with SyncClient(
        live_server.url, client_id=live_server.client_id, client_secret=live_server.client_secret
    ) as threadwise:
        assert threadwise.token()
        assert "7781" in content(threadwise.call("translate", BODY))
        assert "7781" in content(threadwise.call("translate", BODY, websocket=True))
