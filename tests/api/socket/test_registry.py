"""The open sockets at shutdown: their replies in flight are sent, then they close 1001."""

from __future__ import annotations

import asyncio

import pytest

from tests.api.socket.clients import (
    threadwise,
    translate_body,
)
from tests.conftest import LiveServer, serving, until
from threadwise.config import Settings
from threadwise.services import Services

pytestmark = pytest.mark.anyio


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
