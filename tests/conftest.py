from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from threadwise.api.app import create_app
from threadwise.config import Settings
from threadwise.services import Services, build_services

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # The real default model, from the shared model cache; state in a throwaway directory.
    # Translation's deadline is raised: on a busy 2-core machine the model's first prompt can
    # take longer than the 30 s default, and German has no fast engine to fall back on.
    return Settings(data_dir=tmp_path_factory.mktemp("data"), translation_timeout_seconds=180)


@pytest.fixture(scope="session")
def services(settings: Settings) -> Iterator[Services]:
    built = build_services(settings)
    built.start()
    yield built
    built.close()


@pytest.fixture(scope="session")
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services, manage_services=False)) as test_client:
        yield test_client


@pytest.fixture
def support_chat() -> dict[str, Any]:
    body: dict[str, Any] = json.loads((DATA / "support_chat.json").read_text())
    return body


def minimal_body(**request: Any) -> dict[str, Any]:
    """A small valid body; keyword arguments replace keys of ``request``."""
    base: dict[str, Any] = {
        "connections": {"threadId": "thread-1"},
        "context": {"organizationId": "org-1"},
        "scope": {
            "conversations": [
                {
                    "conversationId": "conv-901",
                    "participants": [
                        {"participantId": "c", "role": "user", "displayName": "Ana"},
                        {"participantId": "a", "role": "operator", "displayName": "Bo"},
                    ],
                    "messages": [
                        {"participantId": "c", "content": "My parcel 7781 is late."},
                        {"participantId": "a", "content": "I have sent a new one today."},
                    ],
                }
            ]
        },
    }
    base.update(request)
    return {"session": {"channel": {"language": "en-US"}}, "request": base}
