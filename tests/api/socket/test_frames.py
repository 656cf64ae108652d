"""Frames as the official client builds them (``docs/protocol/client.md``), and bad frames: each is
answered and the socket stays usable. Sent over a real socket, to uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.api.sdk_frames import example_params, sdk_frame
from tests.api.socket.clients import (
    ENGLISH,
    FAST,
    assert_reply_to,
    fast_queue_blocked,
    raw_socket,
    reply,
    translate_body,
)
from tests.conftest import LiveServer
from threadwise.api.socket.frames import close_reason
from threadwise.services import Services

pytestmark = pytest.mark.anyio


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


def test_close_reasons_fit_a_close_frame() -> None:
    assert close_reason("short") == "short"
    long = close_reason("é" * 200)
    assert len(long.encode()) <= 123 and long.endswith("...")
