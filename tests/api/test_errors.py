"""Every error case of docs/protocol/interface.md §7 that applies to REST, through the real app."""

from __future__ import annotations

import json
from dataclasses import replace
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
    from threadwise.work_queue import Scheduler

    full = Scheduler(capacity=0, name="full")
    summarizers = services.summarize.summarizers
    monkeypatch.setattr(summarizers, "default", replace(summarizers.default, queue=full))
    body = minimal_body()
    # Content no other test sends: no cached answer.
    body["request"]["scope"]["conversations"][0]["messages"][0]["content"] = "Parcel 90210 lost."
    response = client.post("/message/summarize", json=body)
    body = assert_error(response, 503, "OVERLOADED")
    assert int(response.headers["retry-after"]) >= 1
    assert body["error"]["retryable"] is True
    full.shutdown()


# --- input that once failed inside the service (500) ----------------------------------------

FAST_SPANISH = {"translationMode": "fast", "overrideOutputLanguage": "es"}


def post_raw(client: TestClient, text: str, path: str = "/message/translate") -> Any:
    return client.post(path, content=text, headers={"content-type": "application/json"})


@pytest.mark.parametrize("absent", [None, "", " "])
def test_a_null_or_blank_setting_counts_as_absent(client: TestClient, absent: Any) -> None:
    settings = {**FAST_SPANISH, "maxResponseLength": absent, "disableStream": absent}
    response = client.post("/message/translate", json=minimal_body(settings=settings))
    assert response.status_code == 200, response.text
    assert response.json()["state"] == "completed"


@pytest.mark.parametrize("path", ["/message/translate", "/message/summarize"])
@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_json_nested_a_thousand_deep_is_400(client: TestClient, path: str, opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    nested = opening * 1_000 + "1" + closing * 1_000
    text = json.dumps(minimal_body(settings=FAST_SPANISH)).replace('"thread-1"', nested)
    body = assert_error(post_raw(client, text, path), 400, "INVALID_JSON")
    assert "nested more than 32 levels deep" in body["error"]["message"]


def test_an_integer_of_5000_digits_is_400(client: TestClient) -> None:
    settings = {**FAST_SPANISH, "maxResponseLength": "MAX"}
    text = json.dumps(minimal_body(settings=settings)).replace('"MAX"', "9" * 5_000)
    body = assert_error(post_raw(client, text), 400, "INVALID_JSON")
    assert "more than 4300 digits" in body["error"]["message"]


def test_a_lone_surrogate_in_content_is_translated_as_a_replacement_character(
    client: TestClient,
) -> None:
    text = json.dumps(minimal_body(settings=FAST_SPANISH)).replace("My parcel", "\\ud800My parcel")
    response = post_raw(client, text)
    assert response.status_code == 200, response.text
    [[first, _]] = [r["response"] for r in response.json()["message"]["results"]]
    assert first["content"].startswith("\ufffd")


# --- errors outside /message/ are envelopes too ---------------------------------------------


def test_no_such_path_is_a_404_envelope(client: TestClient) -> None:
    body = assert_error(client.get("/no/such/path"), 404, "NOT_FOUND")
    assert "/no/such/path" in body["error"]["message"]


def test_a_method_the_path_does_not_take_is_a_405_envelope(client: TestClient) -> None:
    response = client.get("/message/translate")
    body = assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "POST"
    assert "takes POST" in body["error"]["message"]
    assert_error(client.delete("/healthz"), 405, "METHOD_NOT_ALLOWED")


def test_a_long_correlation_id_is_echoed_as_the_socket_echoes_it(client: TestClient) -> None:
    # One rule for both transports (protocol.echoed_id): at most 128 characters.
    body = minimal_body(settings=FAST_SPANISH)
    response = client.post("/message/translate", json=body, headers={"X-Correlation-Id": "c" * 500})
    assert response.status_code == 200
    assert response.headers["x-correlation-id"] == "c" * 128
