"""Serving through the HTTP app with the real engines: idempotency keys, the result cache,
request records, /metrics, /readyz, draining, and a client that goes away. The fast tier
(Apertium) answers; the model is never asked."""

from __future__ import annotations

import json
import logging
import socket
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import eventually, minimal_body, serving, wait_until_ready
from threadwise.config import Settings
from threadwise.logs import JsonFormatter
from threadwise.services import Services


@pytest.fixture(scope="module", autouse=True)
def ready(client: TestClient, services: Services) -> None:
    wait_until_ready(services, 120)


def fast_body(text: str | None = None) -> dict[str, Any]:
    data = minimal_body(settings={"translationMode": "fast", "overrideOutputLanguage": "es"})
    # Unique content: no answer from an earlier test's cache.
    content = text or f"The parcel {uuid.uuid4().int % 10**6} is late."
    data["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c", "content": content}
    ]
    return data


def metric(client: TestClient, name: str, **labels: str) -> float:
    text = client.get("/metrics").text
    for line in text.splitlines():
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
        if line.startswith(name + " ") and not labels:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_a_repeated_idempotency_key_returns_the_first_answer(client: TestClient) -> None:
    body = fast_body()
    key = {"Idempotency-Key": uuid.uuid4().hex}
    replayed = metric(
        client, "threadwise_cache_lookups_total", cache="idempotency", outcome="replayed"
    )
    first = client.post("/message/translate", json=body, headers=key)
    second = client.post("/message/translate", json=body, headers=key)
    assert first.status_code == second.status_code == 200, first.text
    assert first.json() == second.json()
    assert (
        metric(client, "threadwise_cache_lookups_total", cache="idempotency", outcome="replayed")
        == replayed + 1
    )
    other = client.post("/message/translate", json=fast_body(), headers=key)
    assert other.status_code == 422
    error = other.json()["error"]
    assert error["code"] == "IDEMPOTENCY_KEY_REUSED" and "different request" in error["message"]


def test_the_same_request_again_comes_from_the_result_cache(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services.operations, "results_ttl_seconds", 3600)
    body = fast_body()
    hits = metric(client, "threadwise_cache_lookups_total", cache="result", outcome="hit")
    first = client.post("/message/translate", json=body)
    body["request"]["requestId"] = "another-request"
    second = client.post("/message/translate", json=body)
    assert first.json()["message"] == second.json()["message"]
    assert second.json()["requestId"] == "another-request"
    assert (
        metric(client, "threadwise_cache_lookups_total", cache="result", outcome="hit") == hits + 1
    )


def test_every_request_gets_one_json_log_line_without_content(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    secret_words = "Please send the Zanzibar invoice again today."
    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    with caplog.at_level(logging.INFO, logger="threadwise.requests"):
        response = client.post(
            "/message/translate",
            json=fast_body(secret_words),
            headers={"X-Correlation-Id": "corr-77", "traceparent": traceparent},
        )
    assert response.headers["x-correlation-id"] == "corr-77"
    assert response.headers["x-trace-id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    [record] = [r for r in caplog.records if r.name == "threadwise.requests"]
    line = json.loads(JsonFormatter().format(record))
    assert line["correlationId"] == "corr-77"
    assert line["traceId"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert line["organization"] == "org-1" and line["operation"] == "translate"
    assert line["engine"] == "apertium" and line["status"] == 200 and line["code"] == "OK"
    assert line["durationMs"] > 0
    assert "Zanzibar" not in json.dumps(line)


def test_metrics_show_requests_refusals_queues_and_need_their_token(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.post("/message/translate", json=fast_body())
    text = client.get("/metrics").text
    assert 'threadwise_requests_total{code="OK",operation="translate",organization="org-1"' in text
    assert (
        'threadwise_request_duration_seconds_bucket{engine="apertium",le="0.2",operation="translate"}'
        in text
    )
    assert 'threadwise_queue_depth{queue="llm"}' in text
    assert 'threadwise_queue_wait_seconds_count{priority="interactive",queue="translate"}' in text
    assert "threadwise_model_tokens_total" in text
    monkeypatch.setattr(services.lifecycle, "draining", True)
    refused = client.post("/message/translate", json=fast_body())
    assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"]["code"] == "OVERLOADED"
    assert (
        metric(client, "threadwise_refusals_total", operation="translate", reason="draining") >= 1
    )
    monkeypatch.setattr(services.lifecycle, "draining", False)
    from pydantic import SecretStr

    monkeypatch.setattr(services.settings, "metrics_token", SecretStr("scrape-me"))
    assert client.get("/metrics", headers={"Authorization": ""}).status_code == 401
    allowed = client.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert allowed.status_code == 200


def test_readiness_follows_load_saturation_and_draining(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert client.get("/readyz").status_code == 200
    monkeypatch.setattr(services.fast_queue, "capacity", 0)
    saturated = client.get("/readyz")
    assert saturated.status_code == 503
    assert saturated.json() == {"status": "saturated", "queues": ["translate"]}
    monkeypatch.setattr(services.fast_queue, "capacity", 32)
    monkeypatch.setattr(services.lifecycle, "draining", True)
    assert client.get("/readyz").json() == {"status": "draining"}


@pytest.fixture
def server(services: Services, settings: Settings) -> Iterator[int]:
    """The same services behind a real uvicorn on 127.0.0.1, for what TestClient cannot do."""
    with serving(services, settings) as running:
        yield running.config.port


def test_a_dropped_connection_takes_its_job_out_of_the_queue(
    client: TestClient, services: Services, server: int
) -> None:
    token = client.headers["Authorization"]
    release = threading.Event()
    services.llm_queue.submit(release.wait)  # the model is busy
    try:
        payload = json.dumps(minimal_body()).encode()
        request = (
            f"POST /message/summarize HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode() + payload
        with socket.create_connection(("127.0.0.1", server)) as connection:
            connection.sendall(request)
            eventually(lambda: services.llm_queue.waiting > 0, 10, "the summary never queued")
        eventually(
            lambda: services.llm_queue.waiting == 0, 5, "the abandoned job stayed in the queue"
        )
    finally:
        release.set()
    gone = metric(
        client, "threadwise_requests_total", code="REQUEST_CANCELLED", operation="summarize"
    )
    assert gone >= 1
