"""``GET /metrics``: who may scrape it, and what callers can (not) put in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.api.stack import AuthStack, auth_stack, host, new_org, passed_the_gate
from tests.conftest import minimal_body


def scraper(stack: AuthStack, address: str) -> TestClient:
    """A client of the stack's app, calling from ``address``."""
    return TestClient(stack.http.app, base_url=f"http://{host('acme')}", client=(address, 40000))


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[AuthStack]:
    """An app of its own (its own metrics), rather than the session's shared one."""
    with auth_stack(tmp_path) as built:
        yield built


def test_only_this_machine_may_scrape_without_a_metrics_token(stack: AuthStack) -> None:
    for address in ("127.0.0.1", "::1"):
        assert scraper(stack, address).get("/metrics").status_code == 200
    for address in ("203.0.113.20", "testclient"):
        refused = scraper(stack, address).get("/metrics")
        assert refused.status_code == 401
        error = refused.json()["error"]
        assert error["code"] == "MISSING_TOKEN"
        assert "THREADWISE_METRICS_TOKEN" in error["message"]


def test_with_a_metrics_token_every_scrape_needs_it(
    stack: AuthStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stack.services.settings, "metrics_token", SecretStr("scrape-me"))
    for address in ("127.0.0.1", "203.0.113.20"):
        client = scraper(stack, address)
        assert client.get("/metrics").status_code == 401
        wrong = client.get("/metrics", headers={"Authorization": "Bearer scrape-you"})
        assert wrong.status_code == 401
        allowed = client.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
        assert allowed.status_code == 200


def test_organizations_are_labels_only_once_authorized(stack: AuthStack) -> None:
    mine = new_org()
    client = stack.register(mine)
    token = stack.fetch_token(client)
    local = scraper(stack, "127.0.0.1")
    assert passed_the_gate(stack.call(mine, token))
    forbidden = [f"org-not-mine-{n}" for n in range(50)]
    before = local.get("/metrics").text
    for organization in forbidden:
        refused = stack.call(organization, token)
        assert refused.json()["error"]["code"] == "FORBIDDEN_ORGANIZATION"
    after = local.get("/metrics").text
    assert f'organization="{mine}"' in after
    assert not any(organization in after for organization in forbidden)
    assert 'code="FORBIDDEN_ORGANIZATION",operation="summarize",organization=""' in after
    # Fifty refusals added one series, not fifty.
    assert series(after) == series(before) + 1


def test_organizations_are_labels_only_once_authorized_on_the_websocket(stack: AuthStack) -> None:
    token = stack.fetch_token(stack.register(new_org()))
    forbidden = [f"org-not-mine-{n}" for n in range(20)]
    upgrade = {"Host": host("acme")}
    with stack.http.websocket_connect(
        "/ws", subprotocols=["optave-v1", token], headers=upgrade
    ) as socket:
        for n, organization in enumerate(forbidden):
            frame = minimal_body(context={"organizationId": organization})
            socket.send_json({**frame, "actionType": "summarize", "correlationId": f"c{n}"})
            assert socket.receive_json()["error"]["code"] == "FORBIDDEN_ORGANIZATION"
    exposition = scraper(stack, "127.0.0.1").get("/metrics").text
    refused = 'code="FORBIDDEN_ORGANIZATION",operation="summarize",organization=""'
    assert f'{refused},transport="websocket"' in exposition
    assert not any(organization in exposition for organization in forbidden)


def series(exposition: str) -> int:
    return sum(line.startswith("threadwise_requests_total{") for line in exposition.splitlines())
