"""``GET /languages``: the serving layer's document, to a caller with a token."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.stack import AuthStack, host
from threadwise.api.app import create_app

DOCUMENT: dict[str, Any] = {
    "translation": [
        {"source": "en", "target": "es", "fast": {"engine": "apertium"}},
        {"source": "pt", "target": "en", "fast": {"engine": "bergamot"}},
        {"source": "pt", "target": "es", "fast": {"engine": "apertium"}},
    ],
    "summary": ["en", "es"],
    "measuredOn": {},
}


@pytest.fixture
def client(stack: AuthStack) -> Iterator[TestClient]:
    """The stack's services behind an app whose languages document is ``DOCUMENT``."""
    context = replace(stack.services.serving_context(), languages=lambda: DOCUMENT)
    with TestClient(create_app(context), base_url=f"http://{host('acme')}") as built:
        yield built


def test_the_document_is_answered_to_a_caller_with_a_token(
    stack: AuthStack, client: TestClient
) -> None:
    token = stack.fetch_token(stack.register())
    response = client.get("/languages", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200 and response.json() == DOCUMENT


def test_without_a_token_it_is_refused(client: TestClient) -> None:
    response = client.get("/languages", headers={"Authorization": ""})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "MISSING_TOKEN"


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ("?source=pt-BR", [("pt", "en"), ("pt", "es")]),
        ("?target=ES", [("en", "es"), ("pt", "es")]),
        ("?source=pt&target=es", [("pt", "es")]),
        ("?source=xx", []),
    ],
)
def test_the_directions_from_or_into_one_language(
    stack: AuthStack, client: TestClient, query: str, kept: list[tuple[str, str]]
) -> None:
    token = stack.fetch_token(stack.register())
    response = client.get(f"/languages{query}", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    answer = response.json()
    assert [(d["source"], d["target"]) for d in answer["translation"]] == kept
    assert answer["summary"] == DOCUMENT["summary"]  # the rest as it is


@pytest.mark.parametrize(
    "query",
    [
        "?source=",
        "?target=1",
        "?source=en%20es",
        "?source=-en",
        "?sourc=en",
        "?source=en&source=fr",
    ],
)
def test_a_malformed_language_is_refused(stack: AuthStack, client: TestClient, query: str) -> None:
    token = stack.fetch_token(stack.register())
    response = client.get(f"/languages{query}", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "PAYLOAD_SCHEMA_MISMATCH"
    assert "source" in error["message"] or "target" in error["message"]
    assert response.json()["error"]["message"].endswith(".")
