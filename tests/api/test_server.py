"""``threadwise serve``'s uvicorn server (api/server.py): whose word it takes for a client's
address, and how long a request's head may take."""

from __future__ import annotations

import socket
import time
from http.client import HTTPResponse
from pathlib import Path

import httpx2
import pytest

from tests.conftest import model_free_settings, serving
from threadwise.api.app import create_app
from threadwise.api.server import build_server
from threadwise.config import ConfigurationError
from threadwise.services import build_services


@pytest.mark.parametrize(
    ("trusted", "answers"),
    [
        # uvicorn's default believed 127.0.0.1: each guess named another address, none was limited.
        ("", [401, 401, 401, 429, 429]),
        ("127.0.0.1", [401] * 5),
    ],
)
def test_an_address_forwarded_from_this_machine_is_believed_only_when_configured(
    tmp_path: Path, trusted: str, answers: list[int]
) -> None:
    settings = model_free_settings(
        tmp_path,
        forwarded_allow_ips=trusted,
        token_failures_per_minute_per_address=3,
        token_failures_per_minute_per_client=100,
    )
    services = build_services(settings)
    try:
        with serving(services, settings) as server:
            url = f"http://127.0.0.1:{server.config.port}/auth/oauth2/token"
            got = [
                httpx2.post(
                    url,
                    data={
                        "grant_type": "client_credentials",
                        "client_id": "tw_x",
                        "client_secret": "x",
                    },
                    headers={"X-Forwarded-For": f"203.0.113.{n}"},
                ).status_code
                for n in range(5)
            ]
    finally:
        services.close()
    assert got == answers


def test_uvicorns_own_variable_is_refused_rather_than_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deployment that set it would otherwise lose its clients' addresses without a word."""
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.0/8")
    settings = model_free_settings(tmp_path)
    services = build_services(settings)
    try:
        with pytest.raises(ConfigurationError, match="THREADWISE_FORWARDED_ALLOW_IPS"):
            build_server(create_app(services.serving_context()), settings, "127.0.0.1", 0)
        monkeypatch.setenv("THREADWISE_FORWARDED_ALLOW_IPS", "10.0.0.0/8")
        configured = model_free_settings(tmp_path)
        server = build_server(create_app(services.serving_context()), configured, "::1", 0)
        assert server.config.forwarded_allow_ips == "10.0.0.0/8"
    finally:
        services.close()


def trickle(connection: socket.socket, seconds: float) -> None:
    """A slow client: a header line every 50 ms for ``seconds``, the head never ended."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        connection.sendall(b"X-Slow: 1\r\n")
        time.sleep(0.05)


def test_a_request_head_that_trickles_in_is_cut_off(tmp_path: Path) -> None:
    """150 clients sending their headers a byte at a time held their connections for 55 s."""
    settings = model_free_settings(tmp_path, header_timeout_seconds=0.5)
    services = build_services(settings)
    try:
        with serving(services, settings) as server:
            port = server.config.port
            with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
                slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                with pytest.raises(ConnectionError):  # closed under it
                    trickle(slow, 4)
            # A head that arrives in time is answered, and so is the next on its connection.
            with socket.create_connection(("127.0.0.1", port), timeout=5) as prompt:
                for _ in range(2):
                    prompt.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    response = HTTPResponse(prompt)
                    response.begin()
                    assert response.status == 200 and response.read() == b'{"status":"ok"}'
    finally:
        services.close()
