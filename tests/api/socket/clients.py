"""What the WebSocket tests share: clients of a live server, bodies, and waits."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

from tests.conftest import LiveServer, minimal_body
from threadwise.client import ThreadwiseClient
from threadwise.services import Services

FAST = {"translationMode": "fast"}
ID = "89012345-6789-0123-456789abcdef"  # the SDK examples' request id: not a UUID
# Plainly English, so that its fast tier is Apertium, never the model (a short "Hi" may be
# taken for German, which only the model translates).
ENGLISH = "Good morning, my parcel has not arrived yet."


def translate_body(*contents: str, language: str = "es-ES", **request: Any) -> dict[str, Any]:
    body = minimal_body(settings={**FAST, "overrideOutputLanguage": language}, **request)
    conversation = body["request"]["scope"]["conversations"][0]
    conversation["messages"] = [{"participantId": "c", "content": c} for c in contents]
    return body


@asynccontextmanager
async def threadwise(live: LiveServer) -> AsyncIterator[ThreadwiseClient]:
    async with ThreadwiseClient(
        live.url, client_id=live.client_id, client_secret=live.client_secret, timeout=60
    ) as client:
        yield client


@asynccontextmanager
async def raw_socket(live: LiveServer, path: str = "/ws") -> AsyncIterator[ClientConnection]:
    """A socket that sends frames as given: the official client's default transport."""
    async with threadwise(live) as client:
        token = await client.token()
    async with websockets.connect(
        live.ws_url + path, subprotocols=[Subprotocol("optave-v1"), Subprotocol(token)]
    ) as connection:
        yield connection


async def reply(connection: ClientConnection, timeout: float = 30) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(connection.recv(), timeout))
    return frame


@contextmanager
def model_queue_blocked(services: Services) -> Iterator[threading.Event]:
    """Hold the model's worker with a job that waits (outside the queue's count): requests
    queue behind it, in flight without costing model time, until the event is set."""
    release = threading.Event()
    blocker = services.llm_queue.submit(release.wait)
    try:
        yield release
    finally:
        release.set()
        blocker.result(timeout=30)


def assert_reply_to(frame: dict[str, Any], correlation_id: str, action: str, state: str) -> None:
    assert frame["headers"]["correlationId"] == correlation_id
    assert frame["correlationId"] == correlation_id
    assert frame["action"] == "superpower"
    assert frame["actionType"] == action
    assert frame["state"] == state
    assert "payload" not in frame  # the client never looks inside one
    if state == "error":
        error = frame["error"]
        assert frame["headers"]["schemaRef"] == "optave.error.v3"
        assert set(error) == {"code", "message", "retryable"} and error["message"]
        [[item]] = [r["response"] for r in frame["message"]["results"]]
        assert item == {"content": error["message"], "error_code": error["code"]}
    else:
        assert "error" not in frame  # any top-level error marks a frame as failed
        assert frame["headers"]["schemaRef"] == "optave.response.v3"
        assert frame["message"]["results"][0]["response"][0]["content"]


@contextmanager
def fast_queue_blocked(services: Services) -> Iterator[None]:
    """Hold every fast-engine thread: fast translations stay in flight until it returns."""
    release = threading.Event()
    blockers = [
        services.fast_queue.submit(release.wait)
        for _ in range(services.settings.translation_threads)
    ]
    try:
        yield
    finally:
        release.set()
        for blocker in blockers:
            blocker.result(timeout=30)
