"""One socket's session, on a real socket (uvicorn on 127.0.0.1, as ``threadwise serve`` runs
it) and in process: many requests in flight, cancelling, streaming, and a client that does
not read its replies.

Most requests are fast-tier translations (milliseconds); a few run the real model: streaming,
and a cancel during generation. Requests that must stay in flight wait in the model's queue
behind a job that blocks it, so they cost no model time at all.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from types import SimpleNamespace
from typing import Any, cast

import pytest
from starlette.websockets import WebSocket, WebSocketState

from tests.api.sdk_frames import example_params, sdk_frame
from tests.api.socket.clients import (
    ENGLISH,
    FAST,
    ID,
    assert_reply_to,
    model_queue_blocked,
    raw_socket,
    reply,
    threadwise,
    translate_body,
)
from tests.conftest import LiveServer, minimal_body, until
from threadwise.api.socket.session import SocketSession
from threadwise.client import ThreadwiseError
from threadwise.config import Settings
from threadwise.services import Services
from threadwise.serving.context import ServingContext

pytestmark = pytest.mark.anyio


# --- many requests on one socket -----------------------------------------------------------


async def test_twenty_requests_in_flight_are_answered_out_of_order_and_matched(
    live_server: LiveServer,
) -> None:
    # The first is a long conversation with Markdown to parse, the rest one plain line each:
    # they overtake it.
    slow = translate_body(
        *(
            f"Line {n}: my **parcel {n}** is [late](https://example.com/{n}) again."
            for n in range(600)
        )
    )
    bodies = [slow] + [translate_body(f"My order {1000 + n} is late.") for n in range(1, 20)]
    async with threadwise(live_server) as client, client.connect() as connected:
        ids = [await connected.send("translate", body) for body in bodies]
        arrived: list[str] = []

        async def answer(correlation_id: str) -> dict[str, Any]:
            frames = [f async for f in connected.replies(correlation_id)]
            arrived.append(correlation_id)
            return frames[-1]

        answers = await asyncio.gather(*(answer(i) for i in ids))
    assert arrived[0] != ids[0], "short requests sent after the long one should overtake it"
    assert len(answers[0]["message"]["results"][0]["response"]) == 600
    for n, (correlation_id, frame) in enumerate(zip(ids, answers, strict=True)):
        assert_reply_to(frame, correlation_id, "translate", "completed")
        if n:
            [item] = frame["message"]["results"][0]["response"]
            assert str(1000 + n) in item["content"], item  # its own request's answer


async def test_requests_beyond_the_socket_limit_are_overloaded_at_once(
    live_server: LiveServer, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services.settings, "websocket_max_in_flight", 2)
    with model_queue_blocked(services):
        async with threadwise(live_server) as client, client.connect() as connected:
            held = [await connected.send("summarize", minimal_body()) for _ in range(2)]
            # Answered while the two held requests still hold the model: it did not wait.
            with pytest.raises(ThreadwiseError) as refused:
                await connected.translate(translate_body(ENGLISH))
            assert refused.value.code == "OVERLOADED" and refused.value.retryable
            for correlation_id in held:
                await connected.cancel(correlation_id)
            for correlation_id in held:
                with pytest.raises(ThreadwiseError) as cancelled:
                    await anext(connected.replies(correlation_id))
                assert cancelled.value.code == "REQUEST_CANCELLED"


# --- cancelling ----------------------------------------------------------------------------


async def test_cancel_removes_a_queued_request(live_server: LiveServer, services: Services) -> None:
    with model_queue_blocked(services):
        async with threadwise(live_server) as client, client.connect() as connected:
            correlation_id = await connected.send("summarize", minimal_body())
            await until(lambda: services.llm_queue.depth == 1)  # behind the blocker
            await connected.cancel(correlation_id)
            with pytest.raises(ThreadwiseError) as cancelled:
                await anext(connected.replies(correlation_id))
            assert cancelled.value.code == "REQUEST_CANCELLED"
            assert cancelled.value.reply["correlationId"] == correlation_id
            assert cancelled.value.reply["actionType"] == "summarize"
            await until(lambda: services.llm_queue.depth == 0)  # out of the queue at once
            # The socket goes on; a cancel for a request already answered is ignored.
            await connected.cancel(correlation_id)
            await connected.translate(translate_body(ENGLISH))


async def test_cancel_read_with_its_request_answers_before_the_request_starts(
    services: Services,
) -> None:
    """A request and its cancel in one read: the task is cancelled before it ever runs."""
    sent: list[dict[str, Any]] = []

    class Recorder:  # what the session's writer uses of a Starlette WebSocket
        application_state = WebSocketState.CONNECTED

        async def send_text(self, text: str) -> None:
            sent.append(json.loads(text))

    session = SocketSession(cast(WebSocket, Recorder()), services.serving_context(), "unused", None)
    writer = asyncio.create_task(session._write())
    try:
        session.on_frame(sdk_frame("translate", example_params(**FAST)))
        session.on_frame(json.dumps({"action": "cancel", "headers": {"correlationId": ID}}))
        await until(lambda: sent)
        assert_reply_to(sent[0], ID, "translate", "error")
        assert sent[0]["error"]["code"] == "REQUEST_CANCELLED"
        assert not session.in_flight
        await session.drain(timeout=10)  # every reply that was due has been sent
        assert len(sent) == 1
    finally:
        writer.cancel()


async def test_closing_a_socket_cancels_its_requests(
    live_server: LiveServer, services: Services
) -> None:
    with model_queue_blocked(services):
        async with threadwise(live_server) as client:
            async with client.connect() as connected:
                for _ in range(3):
                    await connected.send("summarize", minimal_body())
                await until(lambda: services.llm_queue.depth == 3)
            # Nobody waits for them any more: they leave the queue without running.
            await until(lambda: services.llm_queue.depth == 0)


# --- the model: streaming, and a cancel while it writes --------------------------------------


@pytest.mark.model
async def test_streaming_sends_cumulative_started_frames_then_one_completed(
    live_server: LiveServer,
) -> None:
    body = minimal_body(settings={"includeEvidence": True})
    async with threadwise(live_server) as client, client.connect() as connected:
        frames = [f async for f in connected.stream("summarize", body, timeout=600)]
        correlation_id = frames[0]["correlationId"]
        await connected.translate(translate_body(ENGLISH))  # nothing else came for it
    *started, completed = frames
    assert started and all(f["state"] == "started" for f in started)
    assert completed["state"] == "completed"
    partials = [f["message"]["results"][0]["response"][0]["content"] for f in started]
    for before, after in itertools.pairwise(partials):
        assert after.startswith(before) and len(after) > len(before)
    for frame in frames:
        assert_reply_to(frame, correlation_id, "summarize", frame["state"])
    assert "Issue:" not in partials[-1]  # the notes are not the summary
    # The completed frame carries the evidence the request asked for, sentence by sentence.
    item = completed["message"]["results"][0]["response"][0]
    assert " ".join(e["sentence"] for e in item["evidence"]) == item["content"]
    cited = [m for e in item["evidence"] for m in e["messages"]]
    assert cited and all(m["conversationId"] == "conv-901" for m in cited)


@pytest.mark.model
async def test_cancel_stops_generation_at_once(live_server: LiveServer, services: Services) -> None:
    async with threadwise(live_server) as client, client.connect() as connected:
        correlation_id = await connected.send("summarize", minimal_body(), stream=True)
        frames = connected.replies(correlation_id, timeout=600)
        first = await anext(frames)
        assert first["state"] == "started"  # the model is writing
        await connected.cancel(correlation_id)
        with pytest.raises(ThreadwiseError) as cancelled:
            async for _ in frames:
                pass
        assert cancelled.value.code == "REQUEST_CANCELLED"
        # Generation stops at the next token: the model is free again within a moment.
        await until(lambda: services.llm_queue.depth == 0, seconds=5)


async def test_personal_data_is_redacted_over_the_socket_too(live_server: LiveServer) -> None:
    text = "Please mail dan@example.com or call (415) 555-2671."
    async with raw_socket(live_server) as connection:
        for mode, expected in (("mask", "[EMAIL_1]"), ("restore", "dan@example.com")):
            body = translate_body(text)
            body["request"]["settings"]["redactPersonalData"] = mode
            frame = {"action": "message", "headers": {"correlationId": f"pd-{mode}",
                     "action": "translate"}, "payload": body}  # fmt: skip
            await connection.send(json.dumps(frame))
            answer = await reply(connection)
            assert_reply_to(answer, f"pd-{mode}", "translate", "completed")
            [[item]] = [r["response"] for r in answer["message"]["results"]]
            assert expected in item["content"], item
            assert ("(415) 555-2671" in item["content"]) == (mode == "restore")


# --- a client that does not read ------------------------------------------------------------


class SlowReader:
    """A client that sends ``frames`` bad frames and takes ``read_seconds`` to read each reply
    (``None``: it never reads one); then it waits for its replies and leaves."""

    def __init__(self, frames: int, read_seconds: float | None) -> None:
        self.frames = frames
        self.read_seconds = read_seconds
        self.sent = 0  # frames the server has read
        self.replies: list[str] = []
        self.closed: tuple[int, str | None] | None = None
        self.application_state = WebSocketState.CONNECTED
        self._gone = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        if self.closed is None and self.sent < self.frames:
            self.sent += 1
            return {"type": "websocket.receive", "text": "not json"}
        while self.closed is None and len(self.replies) < self.frames:
            await asyncio.sleep(0.01)
        return {"type": "websocket.disconnect", "code": 1000}

    async def send_text(self, text: str) -> None:
        if self.read_seconds is None:
            await self._gone.wait()
            raise RuntimeError("closed")
        await asyncio.sleep(self.read_seconds)
        self.replies.append(text)

    async def close(self, code: int, reason: str | None = None) -> None:
        self.closed = (code, reason)
        self.application_state = WebSocketState.DISCONNECTED
        self._gone.set()


async def serve_reader(client: SlowReader, settings: Settings, unsent: int) -> None:
    settings = settings.model_copy(
        update={"websocket_max_unsent_replies": unsent, "websocket_ping_timeout_seconds": 0.3}
    )
    session = SocketSession(
        cast(WebSocket, client), cast(ServingContext, SimpleNamespace(settings=settings)), "t", None
    )
    await asyncio.wait_for(session.serve(), 30)


async def test_a_client_that_reads_no_reply_is_not_read_either_then_closed_1008(
    settings: Settings,
) -> None:
    """150,000 bad frames in 14 s once held 110 MB of replies nobody read."""
    client = SlowReader(frames=100_000, read_seconds=None)
    await serve_reader(client, settings, unsent=8)
    # The replies of the frames read: eight waiting, one being sent.
    assert client.sent == 9
    assert client.closed is not None and client.closed[0] == 1008
    assert client.closed[1] == "replies not read for 0.3 s; read them"


async def test_a_client_that_reads_slowly_gets_every_reply(settings: Settings) -> None:
    client = SlowReader(frames=40, read_seconds=0.01)
    await serve_reader(client, settings, unsent=4)
    assert client.closed is None and len(client.replies) == 40
    assert all(json.loads(r)["error"]["code"] == "INVALID_JSON" for r in client.replies)
