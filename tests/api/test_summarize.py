"""Summaries through the HTTP app with the real default model (a handful of calls)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from threadwise.services import Services
from threadwise.text.languages import LanguageIdentifier

pytestmark = pytest.mark.model


@pytest.fixture(scope="module", autouse=True)
def ready(client: TestClient, services: Services) -> None:
    deadline = time.monotonic() + 120
    while client.get("/readyz").status_code != 200:
        assert services.load_error is None, services.load_error
        assert time.monotonic() < deadline, "the model did not load within 120 s"
        time.sleep(0.2)


def summarize(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/message/summarize", json=body)
    assert response.status_code == 200, response.text
    envelope: dict[str, Any] = response.json()
    assert envelope["action"] == "superpower"
    assert envelope["actionType"] == "summarize"
    assert envelope["state"] == "completed"
    assert "error" not in envelope
    item: dict[str, Any] = envelope["message"]["results"][0]["response"][0]
    assert item["type"] == "summary"
    assert item["engine"].startswith("llama.cpp:qwen2.5-coder-1.5b")
    return item


def test_english_summary_names_the_key_facts(
    client: TestClient, support_chat: dict[str, Any]
) -> None:
    item = summarize(client, support_chat)
    content = item["content"]
    assert item["language"] == "en-US"
    assert "INV-10443" in content, content
    assert "refund" in content.lower(), content
    # Nothing invented: no invoice number that is not in the chat.
    assert "INV-10444" not in content


def test_spanish_channel_gets_spanish(client: TestClient, support_chat: dict[str, Any]) -> None:
    support_chat["session"]["channel"]["language"] = "es-ES"
    item = summarize(client, support_chat)
    assert item["language"] == "es-ES"
    assert LanguageIdentifier().detect(item["content"]) == "es", item["content"]
    assert "INV-10443" in item["content"]


def test_structured_format_has_its_sections(
    client: TestClient, support_chat: dict[str, Any]
) -> None:
    support_chat["request"]["settings"] = {"summaryFormat": "structured", "maxResponseLength": 600}
    content = summarize(client, support_chat)["content"]
    for section in ("**Issue:**", "**Resolution:**", "**Next steps:**"):
        assert section in content, content
    assert len(content) <= 600


def test_readiness_names_the_engine(client: TestClient) -> None:
    assert client.get("/readyz").json()["engine"].startswith("llama.cpp:")
