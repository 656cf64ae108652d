"""The WebSocket endpoint through Operations: headers.idempotencyKey, and its request lines
and metrics (transport websocket). The fast tier answers; the model is never asked."""

from __future__ import annotations

import json
import uuid

import httpx2
import pytest

from tests.api.sdk_frames import example_params, sdk_frame
from tests.api.socket.clients import FAST, raw_socket, reply
from tests.conftest import LiveServer

pytestmark = pytest.mark.anyio


def frame_with_key(key: str, content: str) -> str:
    frame = json.loads(
        sdk_frame("translate", example_params(overrideOutputLanguage="es-ES", **FAST))
    )
    frame["headers"]["idempotencyKey"] = key
    frame["headers"]["correlationId"] = uuid.uuid4().hex
    messages = frame["payload"]["request"]["scope"]["conversations"][0]["messages"]
    frame["payload"]["request"]["scope"]["conversations"][0]["messages"] = [
        {**messages[0], "content": content}
    ]
    return json.dumps(frame)


async def test_a_repeated_idempotency_key_on_the_socket(live_server: LiveServer) -> None:
    key = uuid.uuid4().hex
    content = f"The invoice {uuid.uuid4().int % 10**6} has not arrived yet."
    async with raw_socket(live_server) as connection:
        await connection.send(frame_with_key(key, content))
        first = await reply(connection)
        await connection.send(frame_with_key(key, content))
        second = await reply(connection)
        await connection.send(frame_with_key(key, "Something else entirely, please."))
        reused = await reply(connection)
    assert first["state"] == second["state"] == "completed"
    assert first["message"] == second["message"]
    assert first["headers"]["correlationId"] != second["headers"]["correlationId"]
    assert reused["state"] == "error" and reused["error"]["code"] == "IDEMPOTENCY_KEY_REUSED"
    metrics = httpx2.get(f"{live_server.url}/metrics").text
    assert 'cache="idempotency",outcome="replayed"' in metrics
    assert 'operation="translate",organization="org-1",transport="websocket"' in metrics
