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
    "translation": [{"source": "en", "target": "es", "fast": {"engine": "apertium"}}],
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
