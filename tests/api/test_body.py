"""Every route with a JSON body reads it one way (api/body.py): the token first, a body over the
route's limit refused (413) before it is read whole, and malformed JSON, numbers past Python's
limit and deep nesting refused as INVALID_JSON (400). On a real socket, where a body can be
announced and never sent."""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterator
from http.client import HTTPResponse
from typing import Any, cast

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute

from tests.conftest import serving, signed_in
from threadwise.services import Services

ROUTES = [
    ("POST", "/glossaries"),
    ("PUT", "/glossaries/g-1"),
    ("PUT", "/glossaries/do-not-translate"),
    ("POST", "/message/summarize"),
    ("POST", "/message/translate"),
]
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def http(engineless: Services) -> Iterator[TestClient]:
    with signed_in(engineless, ["org-1"], "body tests") as client:
        yield client


@pytest.fixture(scope="module")
def port(engineless: Services) -> Iterator[int]:
    with serving(engineless, engineless.settings) as server:
        yield server.config.port


def head(method: str, path: str, port: int, *headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", *headers, "", ""]
    return "\r\n".join(lines).encode()


def answer_to_head(method: str, path: str, port: int, *headers: str) -> tuple[int, dict[str, Any]]:
    """The answer to a request whose head announces a JSON body, of which nothing is sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(head(method, path, port, "Content-Type: application/json", *headers))
        return answer_of(connection)


def answer_of(connection: socket.socket) -> tuple[int, dict[str, Any]]:
    response = HTTPResponse(connection)
    response.begin()
    return response.status, json.loads(response.read())


def code(answer: dict[str, Any]) -> str:
    error: dict[str, Any] = answer["error"]
    return str(error["code"])


@pytest.mark.parametrize(("method", "path"), [*ROUTES, ("POST", "/message/unknown")])
def test_no_body_is_read_before_the_token_is_checked(method: str, path: str, port: int) -> None:
    """The answer comes with none of the 128 MiB announced sent (the server waited for all
    of them, and held them, before)."""
    status, answer = answer_to_head(method, path, port, f"Content-Length: {128 * MIB}")
    assert (status, code(answer)) == (401, "MISSING_TOKEN")


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_a_body_announced_over_the_limit_is_refused_unsent(
    method: str, path: str, port: int, http: TestClient
) -> None:
    authorization = f"Authorization: {http.headers['Authorization']}"
    status, answer = answer_to_head(
        method, path, port, authorization, f"Content-Length: {64 * MIB}"
    )
    assert (status, code(answer)) == (413, "PAYLOAD_TOO_LARGE")
    assert "KiB limit" in answer["error"]["message"]


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_a_body_of_no_announced_length_is_refused_as_it_passes_the_limit(
    method: str, path: str, port: int, http: TestClient
) -> None:
    announced = head(
        method,
        path,
        port,
        f"Authorization: {http.headers['Authorization']}",
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
    )
    chunk = b"%x\r\n%s\r\n" % (64 * 1024, b" " * 64 * 1024)
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(announced)
        # Until the server answers: 64 MiB would be all the probe sent (answered 422 after
        # every byte of it was read).
        while not select.select([connection], [], [], 0)[0] and sent < 64 * MIB:
            try:
                connection.sendall(chunk)
            except OSError:  # answered, and closed: the answer waits to be read
                break
            sent += 64 * 1024
        status, answer = answer_of(connection)
    assert (status, code(answer)) == (413, "PAYLOAD_TOO_LARGE")
    assert sent < 32 * MIB


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize(
    "body",
    [
        b'{"organizationId": "org-1", "name": "\xff\xfe"}',
        b"9" * 5000,
        b"[" * 50_000 + b"]" * 50_000,
        b'{"a":' * 20_000 + b"0" + b"}" * 20_000,
        b"NaN",
    ],
    ids=["invalid UTF-8", "5000 digits", "50,000 deep", "20,000 objects deep", "NaN"],
)
def test_what_no_json_decoder_takes_is_invalid_json(
    http: TestClient, method: str, path: str, body: bytes
) -> None:
    response = http.request(
        method, path, content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400, response.text
    assert code(response.json()) == "INVALID_JSON"


@pytest.mark.parametrize("path", ["/glossaries", "/glossaries/do-not-translate"])
def test_a_body_that_is_not_json_is_refused_by_its_media_type(http: TestClient, path: str) -> None:
    method = "POST" if path == "/glossaries" else "PUT"
    response = http.request(method, path, content=b"organizationId=org-1")
    assert response.status_code == 415
    assert code(response.json()) == "UNSUPPORTED_MEDIA_TYPE"


def test_no_route_leaves_its_body_to_fastapi(http: TestClient) -> None:
    """FastAPI reads and parses a body parameter whole before any dependency, the token
    included, and answers its decoding errors its own way: every route reads its body
    through api/body.py instead."""
    routes = list(api_routes(cast(FastAPI, http.app).routes))
    assert len(routes) > 10
    assert [route.path for route in routes if route.body_field is not None] == []


def api_routes(routes: list[BaseRoute]) -> Iterator[APIRoute]:
    for route in routes:
        # FastAPI keeps an included router's routes in it, not in the app's list.
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from api_routes(included.routes)
        elif isinstance(route, APIRoute):
            yield route
