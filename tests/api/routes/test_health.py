"""``/version``, ``/healthz`` and ``/readyz``: open to anyone, answered without an engine."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import pytest
from fastapi.testclient import TestClient

from threadwise import INTERFACE_VERSION, __version__
from threadwise.api.app import create_app
from threadwise.services import Services


@dataclass
class FakeReadiness:
    """A replica's readiness, as each test sets it."""

    ready: bool = True
    loaded: bool = True
    load_error: BaseException | None = None
    engine_name: str = "model.gguf"
    saturated: list[str] = field(default_factory=list)
    down: dict[str, str] = field(default_factory=dict)

    def saturated_queues(self) -> list[str]:
        return self.saturated

    def unavailable_engines(self) -> dict[str, str]:
        return self.down


@pytest.fixture
def readiness() -> FakeReadiness:
    return FakeReadiness()


@pytest.fixture
def client(engineless: Services, readiness: FakeReadiness) -> Iterator[TestClient]:
    context = replace(engineless.serving_context(), readiness=readiness)
    with TestClient(create_app(context), headers={"Authorization": ""}) as built:
        yield built


def test_version_and_liveness_need_no_token(client: TestClient) -> None:
    assert client.get("/version").json() == {"interface": INTERFACE_VERSION, "service": __version__}
    assert client.get("/healthz").json() == {"status": "ok"}


def test_ready_names_the_engine_and_any_other_that_is_down(
    client: TestClient, readiness: FakeReadiness
) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "engine": "model.gguf"}
    readiness.down = {"other": "connection refused"}
    assert client.get("/readyz").json()["unavailable"] == {"other": "connection refused"}


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"loaded": False}, {"status": "loading"}),
        (
            {"load_error": RuntimeError("no model file")},
            {"status": "failed", "error": "no model file"},
        ),
        (
            {"down": {"": "connection refused"}},
            {"status": "unavailable", "engine": "model.gguf", "error": "connection refused"},
        ),
        ({"saturated": ["translate"]}, {"status": "saturated", "queues": ["translate"]}),
    ],
)
def test_not_ready_says_why(
    client: TestClient, readiness: FakeReadiness, state: dict[str, object], expected: object
) -> None:
    readiness.ready = False
    for name, value in state.items():
        setattr(readiness, name, value)
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json() == expected


def test_draining_is_not_ready(
    client: TestClient,
    engineless: Services,
    readiness: FakeReadiness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readiness.ready = False
    monkeypatch.setattr(engineless.serving_context().lifecycle, "draining", True)
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json() == {"status": "draining"}
