"""The WebSocket endpoint on a real socket (uvicorn on 127.0.0.1, as ``threadwise serve`` runs
it): the upgrade's token and subprotocol, its refusals, and the server's pings."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import time
from typing import Any

import pytest
import websockets
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from tests.api.socket.clients import (
    ENGLISH,
    assert_reply_to,
    reply,
    threadwise,
    translate_body,
)
from tests.api.stack import BASE_DOMAIN, auth_stack, host
from tests.conftest import LiveServer, serving
from threadwise.api.socket.endpoint import upgrade_credentials
from threadwise.auth.tokens import TokenIssuer
from threadwise.config import Settings
from threadwise.services import Services

pytestmark = pytest.mark.anyio


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
