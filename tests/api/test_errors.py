"""Every error case of decisions.md §7 that applies to REST, through the real app."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import minimal_body


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["action"] == "superpower"
    assert body["state"] == "error"
    assert body["error"]["code"] == code
    item = body["message"]["results"][0]["response"][0]
    assert item["error_code"] == code
    assert item["content"] == body["error"]["message"]
    assert response.headers["x-interface-version"] == "3.6.0"
    return body


@pytest.fixture(autouse=True)
def still_serving(client: TestClient) -> Any:
    yield
    assert client.get("/healthz").status_code == 200


def test_missing_conversations(client: TestClient) -> None:
    data = minimal_body()
    del data["request"]["scope"]["conversations"]
    body = assert_error(
        client.post("/message/summarize", json=data), 422, "REQUIRED_FIELDS_MISSING"
    )
    assert body["actionType"] == "summarize"
    assert "request.scope.conversations" in body["error"]["message"]


def test_not_json(client: TestClient) -> None:
    response = client.post(
        "/message/summarize", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert_error(response, 400, "INVALID_JSON")


def test_text_plain(client: TestClient) -> None:
    response = client.post(
        "/message/summarize",
        content=json.dumps(minimal_body()),
        headers={"content-type": "text/plain"},
    )
    assert_error(response, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_too_large(client: TestClient) -> None:
    data = minimal_body()
    data["padding"] = "x" * (600 * 1024)
    assert_error(client.post("/message/summarize", json=data), 413, "PAYLOAD_TOO_LARGE")


def test_schema_mismatch(client: TestClient) -> None:
    data = minimal_body()
    data["request"]["scope"]["conversations"][0]["messages"][0]["timestamp"] = "not a time"
    assert_error(client.post("/message/summarize", json=data), 422, "PAYLOAD_SCHEMA_MISMATCH")


def test_unsupported_language(client: TestClient) -> None:
    data = minimal_body(settings={"overrideOutputLanguage": "tlh"})
    body = assert_error(client.post("/message/summarize", json=data), 422, "UNSUPPORTED_LANGUAGE")
    assert "request.settings.overrideOutputLanguage" in body["error"]["message"]


def test_unknown_action(client: TestClient) -> None:
    body = assert_error(client.post("/message/elevate", json=minimal_body()), 404, "UNKNOWN_ACTION")
    assert body["actionType"] == "elevate"


def test_operations(client: TestClient) -> None:
    version = client.get("/version")
    assert version.json()["interface"] == "3.6.0"
    assert version.headers["x-interface-version"] == "3.6.0"
    assert client.get("/healthz").json() == {"status": "ok"}


def test_full_queue_is_503_with_retry_after(
    client: TestClient, services: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from threadwise.engines.scheduler import Scheduler

    full = Scheduler(capacity=0, name="full")
    monkeypatch.setattr(services.summarize, "queue", full)
    body = minimal_body()
    # Content no other test sends: no cached answer.
    body["request"]["scope"]["conversations"][0]["messages"][0]["content"] = "Parcel 90210 lost."
    response = client.post("/message/summarize", json=body)
    body = assert_error(response, 503, "OVERLOADED")
    assert int(response.headers["retry-after"]) >= 1
    assert body["error"]["retryable"] is True
    full.shutdown()
