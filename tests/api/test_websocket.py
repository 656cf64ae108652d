"""The WebSocket endpoint on a real socket: uvicorn on 127.0.0.1, as ``threadwise serve`` runs
it, and clients speaking the official client's protocol (``docs/protocol/client.md``).

Most requests are fast-tier translations (milliseconds); a few run the real model: an SDK
summarize frame, streaming, and a cancel during generation. Requests that must stay in flight
wait in the model's queue behind a job that blocks it, so they cost no model time at all.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from types import SimpleNamespace
from typing import Any, cast

import pytest
import websockets
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from tests.api.sdk_frames import example_params, sdk_frame
from tests.api.stack import BASE_DOMAIN, auth_stack, host
from tests.conftest import LiveServer, minimal_body, serving
from threadwise.api.websocket import SocketSession, close_reason, upgrade_credentials
from threadwise.auth.tokens import TokenIssuer
from threadwise.client import ThreadwiseClient, ThreadwiseError
from threadwise.config import Settings
from threadwise.services import Services

pytestmark = pytest.mark.anyio

FAST = {"translationMode": "fast"}
ID = "89012345-6789-0123-456789abcdef"  # the SDK examples' request id: not a UUID
# Plainly English, so that its fast tier is Apertium, never the model (a short "Hi" may be
# taken for German, which only the model translates).
ENGLISH = "Good morning, my parcel has not arrived yet."


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


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


async def until(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


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


# --- the upgrade ---------------------------------------------------------------------------


def test_upgrade_credentials_from_either_transport() -> None:
    assert upgrade_credentials(["optave-v1", "tok_ABC-123.xyz_"], None) == (
        "tok_ABC-123.xyz_",
        "optave-v1",
    )
    assert upgrade_credentials([], "Bearer abc.def") == ("abc.def", None)
    assert upgrade_credentials([], "abc.def") == ("abc.def", None)
    # authRequired:false offers optave-v1 alone: answered, whatever the query says.
    assert upgrade_credentials(["optave-v1"], "abc") == ("abc", "optave-v1")
    assert upgrade_credentials(["optave-v1"], None) == (None, "optave-v1")
    # A token offered without optave-v1 is not taken: answering it would leak it.
    assert upgrade_credentials(["abc.def"], None) == (None, None)


@pytest.mark.parametrize("path", ["/", "/ws"])
async def test_subprotocol_transport_is_answered_optave_v1(
    live_server: LiveServer, path: str
) -> None:
    async with threadwise(live_server) as client, client.connect(path=path) as connected:
        assert connected.connection is not None
        assert connected.subprotocol == "optave-v1"
        # Exactly optave-v1: never the token, which would then sit in response headers.
        assert connected.connection.response is not None
        assert connected.connection.response.headers["Sec-WebSocket-Protocol"] == "optave-v1"
        frame = await connected.translate(translate_body(ENGLISH))
    assert frame["state"] == "completed"


async def test_query_transport_is_answered_with_no_subprotocol(live_server: LiveServer) -> None:
    async with threadwise(live_server) as client:
        async with client.connect(transport="query") as connected:
            assert connected.connection is not None and connected.subprotocol is None
            assert "Sec-WebSocket-Protocol" not in connected.connection.response.headers  # type: ignore[union-attr]
            await connected.translate(translate_body(ENGLISH))
        # The SDK strips a "Bearer " prefix; a client that keeps it is accepted too.
        token = await client.token()
    url = f"{live_server.ws_url}/ws?Authorization=Bearer%20{token}"
    async with websockets.connect(url) as connection:
        assert connection.subprotocol is None


async def upgrade_refusal(url: str, subprotocols: list[str] | None = None) -> Any:
    with pytest.raises(InvalidStatus) as refused:
        async with websockets.connect(
            url, subprotocols=[Subprotocol(p) for p in subprotocols or []] or None
        ):
            pass
    return refused.value.response


@pytest.mark.parametrize("offered", [None, ["optave-v1"]])
async def test_upgrade_without_token_is_refused_401(
    live_server: LiveServer, offered: list[str] | None
) -> None:
    response = await upgrade_refusal(live_server.ws_url + "/ws", offered)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert response.headers["Content-Type"] == "application/json"
    envelope = json.loads(response.body)
    assert envelope["state"] == "error" and envelope["error"]["code"] == "MISSING_TOKEN"
    assert "optave-v1,<token>" in envelope["error"]["message"]


async def test_bad_and_expired_tokens_are_refused_401(
    live_server: LiveServer, services: Services, settings: Settings
) -> None:
    response = await upgrade_refusal(live_server.ws_url + "/", ["optave-v1", "not.a.jwt"])
    assert response.status_code == 401
    assert json.loads(response.body)["error"]["code"] == "INVALID_TOKEN"

    an_hour_ago = TokenIssuer(
        services.auth.keys, settings.jwt_issuer, 60, clock=lambda: time.time() - 3600
    )
    expired = an_hour_ago.issue("default", live_server.client_id, ["org-1"]).token
    response = await upgrade_refusal(f"{live_server.ws_url}/ws?Authorization={expired}")
    assert response.status_code == 401
    assert json.loads(response.body)["error"]["code"] == "TOKEN_EXPIRED"


def test_token_is_valid_only_on_its_tenants_hosts_in_process(tmp_path: Any) -> None:
    with auth_stack(tmp_path) as stack:
        acme = stack.register("org-acme", tenant="acme")
        token = stack.fetch_token(acme)
        other_tenant = {"Host": host("globex")}
        with (
            pytest.raises(WebSocketDenialResponse) as refused,
            stack.http.websocket_connect(
                "/ws", subprotocols=["optave-v1", token], headers=other_tenant
            ),
        ):
            pass
        assert refused.value.status_code == 401
        with stack.http.websocket_connect(
            "/ws", subprotocols=["optave-v1", token], headers={"Host": f"ws-acme.{BASE_DOMAIN}"}
        ) as connection:
            assert connection.accepted_subprotocol == "optave-v1"
            # Without uvicorn's frame limit in front, the endpoint applies its own.
            connection.send_text("x" * (512 * 1024 + 1))
            with pytest.raises(WebSocketDisconnect) as closed:
                connection.receive_text()
            assert closed.value.code == 1009 and closed.value.reason


# --- frames as the official client builds them ---------------------------------------------


async def test_sdk_translate_frame_with_the_default_skeleton(live_server: LiveServer) -> None:
    params = example_params(overrideOutputLanguage="es-ES", translationMode="fast")
    frame_text = sdk_frame("translate", params)
    sent = json.loads(frame_text)
    assert sent["payload"]["request"]["scope"]["products"] == [{"id": ""}]  # the skeleton
    async with raw_socket(live_server) as connection:
        await connection.send(frame_text)
        answer = await reply(connection)
    correlation_id = "89012345-6789-0123-456789abcdef"  # request.requestId: not a UUID
    assert_reply_to(answer, correlation_id, "translate", "completed")
    assert answer["headers"]["action"] == "translate"
    assert answer["headers"]["traceId"] == sent["headers"]["traceId"]
    assert answer["headers"]["idempotencyKey"] == sent["headers"]["idempotencyKey"]
    assert answer["requestId"] == correlation_id and answer["variant"] == "A"
    items = answer["message"]["results"][0]["response"]
    assert [i["conversationId"] for i in items] == ["conv-678", "conv-678"]
    assert "4471" in items[0]["content"] and items[0]["targetLanguage"] == "es-ES"
    assert all(i["sourceLanguage"] == "en" for i in items)


@pytest.mark.model
async def test_sdk_summarize_frame_with_the_default_skeleton(live_server: LiveServer) -> None:
    async with raw_socket(live_server, "/") as connection:
        await connection.send(sdk_frame("summarize", example_params()))
        answer = await reply(connection, timeout=600)
    assert_reply_to(answer, "89012345-6789-0123-456789abcdef", "summarize", "completed")
    [item] = answer["message"]["results"][0]["response"]
    assert item["type"] == "summary" and item["language"] == "en-US"
    assert "4471" in item["content"] or "replacement" in item["content"].lower()


@pytest.mark.model
async def test_summary_aspects_over_the_socket(live_server: LiveServer) -> None:
    asked = ["chapterTitle", "resolutionStatus", "entities"]
    async with raw_socket(live_server) as connection:
        await connection.send(sdk_frame("summarize", example_params(summaryAspects=asked)))
        answer = await reply(connection, timeout=600)
    assert_reply_to(answer, "89012345-6789-0123-456789abcdef", "summarize", "completed")
    items = answer["message"]["results"][0]["response"]
    assert [i["aspect"] for i in items] == asked
    title, status, entities = items
    assert 0 < len(title["content"].split()) <= 8
    assert status["label"] in ("resolved", "partially", "unresolved", "unknown")
    assert "4471" in [e["text"] for e in entities["entities"]], entities


async def test_plain_frames_name_their_superpower_in_headers_or_action_type(
    live_server: LiveServer,
) -> None:
    body = translate_body(ENGLISH)
    async with raw_socket(live_server) as connection:
        await connection.send(
            json.dumps({**body, "headers": {"correlationId": "p-1", "action": "translate"}})
        )
        assert_reply_to(await reply(connection), "p-1", "translate", "completed")
        await connection.send(json.dumps({**body, "actionType": "translate", "correlationId": 7}))
        # No correlation id that is a string: request.requestId is next, then none at all.
        answer = await reply(connection)
        assert answer["state"] == "error" and "correlationId" not in answer
        body["request"]["requestId"] = "r-9"
        await connection.send(json.dumps({**body, "actionType": "translate"}))
        assert_reply_to(await reply(connection), "r-9", "translate", "completed")


async def test_frame_of_512_kib_is_read_and_larger_ones_close_1009(
    live_server: LiveServer,
) -> None:
    params = example_params(overrideOutputLanguage="es-ES", translationMode="fast")
    params["request"]["attributes"]["content"] = ""  # an SDK field the superpowers ignore
    overhead = len(sdk_frame("translate", params).encode())
    params["request"]["attributes"]["content"] = "x" * (512 * 1024 - overhead)
    frame = sdk_frame("translate", params)
    assert len(frame.encode()) == 512 * 1024
    async with raw_socket(live_server) as connection:
        await connection.send(frame)
        assert (await reply(connection))["state"] == "completed"
        await connection.send(frame + " ")
        with pytest.raises(ConnectionClosed) as closed:
            await reply(connection)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert closed.value.rcvd.reason  # every close says why


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
            started = time.monotonic()
            with pytest.raises(ThreadwiseError) as refused:
                await connected.translate(translate_body(ENGLISH))
            assert refused.value.code == "OVERLOADED" and refused.value.retryable
            assert time.monotonic() - started < 2
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

    session = SocketSession(cast(WebSocket, Recorder()), services, "unused", None)
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


# --- bad frames ------------------------------------------------------------------------------


def sdk_translate(**changes: Any) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(sdk_frame("translate", example_params(**FAST)))
    frame["headers"]["correlationId"] = "bad-1"
    for path, value in changes.items():
        where = frame
        *parents, last = path.split("__")
        for key in parents:
            where = where[key]
        if value is None:
            del where[last]
        else:
            where[last] = value
    return frame


BAD_FRAMES: dict[str, tuple[str, str | None, str]] = {
    "not JSON": ('{"action": "message", "headers": {', None, "INVALID_JSON"),
    "not an object": ("[1, 2]", None, "PAYLOAD_SCHEMA_MISMATCH"),
    "no correlation id": (
        json.dumps(sdk_translate(headers__correlationId=None, payload__request__requestId="")),
        None,
        "REQUIRED_FIELDS_MISSING",
    ),
    "unknown frame action": (
        json.dumps(sdk_translate(action="subscribe")),
        "bad-1",
        "UNKNOWN_ACTION",
    ),
    "unknown superpower": (
        json.dumps(sdk_translate(headers__action="recommend")),
        "bad-1",
        "UNKNOWN_ACTION",
    ),
    "no superpower": (
        json.dumps(sdk_translate(headers__action=None)),
        "bad-1",
        "REQUIRED_FIELDS_MISSING",
    ),
    "missing field": (
        json.dumps(sdk_translate(payload__request__connections__threadId="")),
        "bad-1",
        "REQUIRED_FIELDS_MISSING",
    ),
    "wrong type": (
        json.dumps(sdk_translate(payload__request__scope__conversations="many")),
        "bad-1",
        "PAYLOAD_SCHEMA_MISMATCH",
    ),
    "other organization": (
        json.dumps(sdk_translate(payload__request__context__organizationId="org-globex")),
        "bad-1",
        "FORBIDDEN_ORGANIZATION",
    ),
    "no target language": (
        json.dumps(sdk_translate(payload__session__channel__language="")),
        "bad-1",
        "MISSING_TARGET_LANGUAGE",
    ),
    "cancel without correlation id": (
        json.dumps({"action": "cancel", "headers": {}}),
        None,
        "REQUIRED_FIELDS_MISSING",
    ),
    "nested 1,000 deep": (
        json.dumps(sdk_translate()).replace('"bad-1"', "[" * 1_000 + "]" * 1_000),
        None,
        "INVALID_JSON",
    ),
    "an integer of 5,000 digits": (
        json.dumps(sdk_translate()).replace('"bad-1"', "7" * 5_000),
        None,
        "INVALID_JSON",
    ),
    "a correlation id over 128 characters": (
        json.dumps(sdk_translate(headers__correlationId="c" * 100_000)),
        "c" * 128,  # echoed as far as it can be, once in headers and once at the top
        "PAYLOAD_SCHEMA_MISMATCH",
    ),
    "an action of 100,000 characters": (
        json.dumps(sdk_translate(headers__action="a" * 100_000)),
        "bad-1",
        "UNKNOWN_ACTION",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FRAMES))
async def test_bad_frame_is_answered_and_the_socket_stays_usable(
    live_server: LiveServer, case: str
) -> None:
    text, correlation_id, code = BAD_FRAMES[case]
    async with raw_socket(live_server) as connection:
        await connection.send(text)
        answer = await reply(connection)
        assert answer["state"] == "error" and answer["error"]["code"] == code, answer
        if correlation_id is not None:
            assert_reply_to(answer, correlation_id, answer["actionType"], "error")
        else:
            assert "correlationId" not in answer and "correlationId" not in answer["headers"]
        # Still open, and answering.
        after = {**translate_body(ENGLISH), "actionType": "translate", "correlationId": "after"}
        await connection.send(json.dumps(after))
        assert_reply_to(await reply(connection), "after", "translate", "completed")


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


async def test_a_bad_frame_leaves_the_requests_in_flight_to_be_answered(
    live_server: LiveServer, services: Services
) -> None:
    async with raw_socket(live_server) as connection:
        with fast_queue_blocked(services):
            frame = {**translate_body(ENGLISH), "actionType": "translate", "correlationId": "held"}
            await connection.send(json.dumps(frame))
            await connection.send("[" * 100_000 + "]" * 100_000)
            answer = await reply(connection)
            assert answer["error"]["code"] == "INVALID_JSON", answer
        assert_reply_to(await reply(connection), "held", "translate", "completed")


@pytest.mark.parametrize("absent", [None, "", " "])
async def test_null_or_blank_settings_count_as_absent_on_the_socket(
    live_server: LiveServer, absent: Any
) -> None:
    frame = sdk_translate()
    frame["payload"]["request"]["settings"].update(maxResponseLength=absent, disableStream=absent)
    async with raw_socket(live_server) as connection:
        await connection.send(json.dumps(frame))
        assert_reply_to(await reply(connection), "bad-1", "translate", "completed")


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
        cancelled_at = time.monotonic()
        with pytest.raises(ThreadwiseError) as cancelled:
            async for _ in frames:
                pass
        assert cancelled.value.code == "REQUEST_CANCELLED"
        # Generation stops at the next token: the model is free again within a moment.
        await until(lambda: services.llm_queue.depth == 0, seconds=5)
        assert time.monotonic() - cancelled_at < 5


# --- closing -----------------------------------------------------------------------------------


async def test_shutdown_sends_replies_in_flight_then_closes_1001(
    services: Services, settings: Settings, live_server: LiveServer
) -> None:
    with serving(services, settings) as server:
        url = f"http://127.0.0.1:{server.config.port}"
        other = LiveServer(url, live_server.client_id, live_server.client_secret, server)
        async with threadwise(other) as client, client.connect() as connected:
            long = translate_body(*(f"Message {n}: the parcel is late." for n in range(300)))
            correlation_id = await connected.send("translate", long)
            await asyncio.sleep(0.05)
            server.should_exit = True
            frames = [f async for f in connected.replies(correlation_id, timeout=60)]
            assert frames[-1]["state"] == "completed"
            await until(lambda: connected._closed is not None, seconds=30)
            assert connected._closed is not None
            assert connected._closed.code == 1001 and connected._closed.reason


async def test_server_pings_keep_live_sockets_and_close_dead_ones(
    services: Services, settings: Settings, live_server: LiveServer
) -> None:
    quick = settings.model_copy(
        update={"websocket_ping_interval_seconds": 0.2, "websocket_ping_timeout_seconds": 0.3}
    )
    with serving(services, quick) as server:
        port = server.config.port
        async with threadwise(live_server) as client:
            token = await client.token()
        # A peer that completes the handshake, then never reads or answers again.
        with socket.create_connection(("127.0.0.1", port)) as dead:
            key = base64.b64encode(os.urandom(16)).decode()
            dead.sendall(
                (
                    f"GET /ws?Authorization={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            assert dead.recv(4096).startswith(b"HTTP/1.1 101")
            url = f"ws://127.0.0.1:{port}/ws?Authorization={token}"
            async with websockets.connect(url, ping_interval=None) as alive:
                await asyncio.sleep(1.5)  # several pings, answered by the client library
                request = {
                    **translate_body(ENGLISH),
                    "actionType": "translate",
                    "correlationId": "a",
                }
                await alive.send(json.dumps(request))
                assert_reply_to(await reply(alive), "a", "translate", "completed")
            dead.settimeout(5)
            received = b""
            while chunk := dead.recv(4096):  # pings, then a close frame, then EOF
                received += chunk
        assert b"\x88" in received  # the close frame: the server gave up on the dead peer


def test_close_reasons_fit_a_close_frame() -> None:
    assert close_reason("short") == "short"
    long = close_reason("é" * 200)
    assert len(long.encode()) <= 123 and long.endswith("...")


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
        cast(WebSocket, client), cast(Services, SimpleNamespace(settings=settings)), "t", None
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
