"""GET /usage through the HTTP app with real tokens, and the monthly quota refusing requests
over REST and the WebSocket. Model-free: a translation into the messages' own language is
answered without an engine."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx2
import pytest

from tests.api.routes.test_glossaries import refused
from tests.api.stack import AuthStack, host, new_org
from tests.conftest import minimal_body

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
CHARACTERS = 51  # minimal_body's two messages


@pytest.fixture(autouse=True)
def wall_clock(stack: AuthStack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stack.services.usage, "now", lambda: NOW)


@pytest.fixture
def org(stack: AuthStack) -> Iterator[str]:
    organization = new_org()
    yield organization
    stack.services.policies.set_defaults("acme", organization, monthly_characters=None)


def headers(token: str) -> dict[str, str]:
    return {"Host": host("acme"), "Authorization": f"Bearer {token}"}


def translation(org: str, *targets: str) -> dict[str, Any]:
    """Into the messages' own language: answered at once, by no engine."""
    return minimal_body(context={"organizationId": org}, settings={"targetLanguages": targets})


def usage(stack: AuthStack, token: str, query: str) -> httpx2.Response:
    return stack.http.get(f"/usage?{query}", headers=headers(token))


def test_answered_requests_show_in_the_organizations_usage(stack: AuthStack, org: str) -> None:
    token = stack.fetch_token(stack.register(org))
    for targets in (["en"], ["en", "en-GB"]):
        answer = stack.http.post(
            "/message/translate", json=translation(org, *targets), headers=headers(token)
        )
        assert answer.status_code == 200, answer.text
    stack.services.usage.add("acme", org, "summarize", 400, 900, 120, NOW)
    stack.services.policies.set_defaults("acme", org, monthly_characters=10_000)

    response = usage(stack, token, f"organizationId={org}")
    assert response.status_code == 200, response.text
    translated = {
        "requests": 2,
        "characters": 3 * CHARACTERS,  # once per target
        "promptTokens": 0,
        "completionTokens": 0,
    }
    summarized = {"requests": 1, "characters": 400, "promptTokens": 900, "completionTokens": 120}
    assert response.json() == {
        "organizationId": org,
        "from": "2026-11-01",
        "to": "2026-11-24",
        "totals": {
            "requests": 3,
            "charactersTranslated": 3 * CHARACTERS,
            "charactersSummarized": 400,
            "promptTokens": 900,
            "completionTokens": 120,
            "byOperation": {"summarize": summarized, "translate": translated},
        },
        "days": [
            {"date": "2026-11-24", "operation": "summarize", **summarized},
            {"date": "2026-11-24", "operation": "translate", **translated},
        ],
        "quota": {
            "monthlyCharacters": 10_000,
            "usedThisMonth": 400 + 3 * CHARACTERS,
            "resetsOn": "2026-12-01",
        },
    }
    assert stack.services.usage.flush()  # written: read the same from the database
    assert usage(stack, token, f"organizationId={org}").json() == response.json()
    earlier = usage(stack, token, f"organizationId={org}&from=2026-10-01&to=2026-10-31").json()
    assert earlier["days"] == [] and earlier["totals"]["requests"] == 0
    assert earlier["quota"]["usedThisMonth"] == 400 + 3 * CHARACTERS  # this month's, whatever


def test_usage_needs_a_token_for_the_organization(stack: AuthStack, org: str) -> None:
    token = stack.fetch_token(stack.register(org))
    other = new_org()
    message = refused(usage(stack, token, f"organizationId={other}"), 403, "FORBIDDEN_ORGANIZATION")
    assert message.startswith(f"organizationId {other!r} is not an organization")
    response = stack.http.get(f"/usage?organizationId={org}", headers={"Host": host("acme")})
    refused(response, 401, "MISSING_TOKEN")
    refused(usage(stack, token, ""), 422, "PAYLOAD_SCHEMA_MISMATCH")  # no organizationId


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("from=2026-13-01", "'from' is a UTC day as YYYY-MM-DD (2026-11-01, say), got '2026-1"),
        ("to=24.11.2026", "'to' is a UTC day as YYYY-MM-DD"),
        ("from=2026-11-10&to=2026-11-09", "'to' (2026-11-09) is before 'from' (2026-11-10)"),
        ("from=2025-01-01&to=2026-01-02", "is 367 days, more than the 366 one report covers"),
    ],
)
def test_days_that_make_no_report_say_what_to_fix(
    stack: AuthStack, org: str, query: str, said: str
) -> None:
    token = stack.fetch_token(stack.register(org))
    message = refused(
        usage(stack, token, f"organizationId={org}&{query}"), 422, "PAYLOAD_SCHEMA_MISMATCH"
    )
    assert said in message


@pytest.mark.parametrize("transport", ["rest", "websocket"])
def test_a_request_over_the_quota_is_refused_whole(
    stack: AuthStack, org: str, transport: str
) -> None:
    token = stack.fetch_token(stack.register(org))
    stack.services.policies.set_defaults("acme", org, monthly_characters=2 * CHARACTERS)

    def send(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        if transport == "rest":
            answer = stack.http.post("/message/translate", json=body, headers=headers(token))
            return answer.json(), dict(answer.headers)
        with stack.http.websocket_connect(
            "/ws", subprotocols=["optave-v1", token], headers={"Host": host("acme")}
        ) as socket:
            socket.send_json({**body, "actionType": "translate", "correlationId": "c1"})
            return socket.receive_json(), {}

    first, _ = send(translation(org, "en"))
    assert "error" not in first, first
    reply, sent_headers = send(translation(org, "en", "en-GB"))  # 153 characters: over 102
    error = reply["error"]
    assert reply["state"] == "error" and error["code"] == "QUOTA_EXCEEDED"
    assert f"has used {CHARACTERS} of its {2 * CHARACTERS} characters" in error["message"]
    assert "starts again on 2026-12-01" in error["message"]
    if transport == "rest":
        assert sent_headers["retry-after"] == str(6 * 24 * 3600 + 12 * 3600)
    report = usage(stack, token, f"organizationId={org}").json()
    assert report["totals"]["requests"] == 1  # the refused request is not counted
    assert report["quota"]["usedThisMonth"] == CHARACTERS


@pytest.mark.parametrize("transport", ["rest", "websocket"])
def test_a_retry_with_its_key_gets_its_answer_once_the_quota_is_spent(
    stack: AuthStack, org: str, transport: str
) -> None:
    token = stack.fetch_token(stack.register(org))
    stack.services.policies.set_defaults("acme", org, monthly_characters=CHARACTERS)

    def send(key: str, *targets: str) -> dict[str, Any]:
        body = translation(org, *targets)
        if transport == "rest":
            sent = {**headers(token), "Idempotency-Key": key}
            answer: dict[str, Any] = stack.http.post(
                "/message/translate", json=body, headers=sent
            ).json()
            return answer
        with stack.http.websocket_connect(
            "/ws", subprotocols=["optave-v1", token], headers={"Host": host("acme")}
        ) as socket:
            frame = {"action": "translate", "correlationId": "c1", "idempotencyKey": key}
            socket.send_json({**body, "headers": frame})
            reply: dict[str, Any] = socket.receive_json()
            return reply

    first = send("k-1", "en")
    assert "error" not in first, first
    spent = send("k-2", "en-GB")
    assert spent["error"]["code"] == "QUOTA_EXCEEDED"
    again = send("k-1", "en")
    assert "error" not in again, again
    assert again["message"] == first["message"]
    report = usage(stack, token, f"organizationId={org}").json()
    assert report["totals"]["requests"] == 1  # the replay is not charged again
    assert report["quota"]["usedThisMonth"] == CHARACTERS
