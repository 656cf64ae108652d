"""POST /auth/oauth2/token as the official client and other OAuth2 clients call it
(docs/protocol/client.md §1, docs/protocol/interface.md §3)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from urllib.parse import urlencode

import httpx2
import jwt
import pytest
from fastapi.testclient import TestClient

from tests.api.stack import AuthStack, auth_stack, host, new_org, passed_the_gate
from threadwise.auth.clients import ClientSecret

# RFC 7230 token characters: what the `ws` package accepts as a WebSocket subprotocol.
SUBPROTOCOL_SAFE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def as_the_sdk_does(stack: AuthStack, client_id: str, secret: str) -> httpx2.Response:
    """Parameters in the query string (URLSearchParams encoding), an empty form body."""
    query = urlencode(
        {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    )
    return stack.http.post(
        f"/auth/oauth2/token?{query}",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        content=b"",
    )


def assert_token(response: httpx2.Response, credentials: ClientSecret) -> str:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["token"] == body["access_token"]
    assert response.headers["cache-control"] == "no-store"
    token: str = body["access_token"]
    assert SUBPROTOCOL_SAFE.fullmatch(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["sub"] == credentials.client.client_id
    assert claims["aud"] == credentials.client.tenant
    assert claims["orgs"] == list(credentials.client.organizations)
    assert claims["exp"] - claims["iat"] == 3600
    assert {"iss", "scope", "jti"} <= claims.keys()
    return token


def assert_oauth_error(response: httpx2.Response, status: int, error: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()  # the SDK parses the body as JSON before it looks at the status
    assert body["error"] == error
    description: str = body["error_description"]
    assert description
    return description


def test_query_string_as_the_official_client_sends_it(stack: AuthStack) -> None:
    client = stack.register(new_org())
    token = assert_token(
        as_the_sdk_does(stack, client.client.client_id, client.client_secret), client
    )
    assert passed_the_gate(stack.call(client.client.organizations[0], token))


def test_form_body(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = stack.http.post(
        "/auth/oauth2/token",
        data={
            "grant_type": "client_credentials",
            "client_id": client.client.client_id,
            "client_secret": client.client_secret,
        },
    )
    assert_token(response, client)


def test_http_basic(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = stack.http.post(
        "/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client.client.client_id, client.client_secret),
    )
    assert_token(response, client)


def test_each_token_is_distinct_and_marks_the_client_used(stack: AuthStack) -> None:
    client = stack.register(new_org())
    assert client.client.last_used_at is None
    first = stack.fetch_token(client)
    second = stack.fetch_token(client)
    assert first != second
    used = stack.services.auth.clients.get(client.client.client_id)
    assert used is not None and used.last_used_at is not None


def test_wrong_secret(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = as_the_sdk_does(stack, client.client.client_id, client.client_secret + "x")
    assert "threadwise clients create" in assert_oauth_error(response, 401, "invalid_client")
    assert "www-authenticate" not in response.headers


def test_wrong_secret_over_basic_gets_a_basic_challenge(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = stack.http.post(
        "/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client.client.client_id, "tws_wrong"),
    )
    assert_oauth_error(response, 401, "invalid_client")
    assert response.headers["www-authenticate"].startswith("Basic")


def test_unknown_and_revoked_clients_get_the_same_answer(stack: AuthStack) -> None:
    client = stack.register(new_org())
    wrong = as_the_sdk_does(stack, client.client.client_id, "tws_not-the-secret")
    unknown = as_the_sdk_does(stack, "twc_000000000000000000000000", client.client_secret)
    stack.services.auth.clients.revoke(client.client.client_id)
    revoked = as_the_sdk_does(stack, client.client.client_id, client.client_secret)
    answers = {(r.status_code, r.text) for r in (wrong, unknown, revoked)}
    assert len(answers) == 1
    assert_oauth_error(revoked, 401, "invalid_client")


def test_rotated_secret(stack: AuthStack) -> None:
    client = stack.register(new_org())
    rotated = stack.services.auth.clients.rotate(client.client.client_id)
    assert rotated.client_secret != client.client_secret
    old = as_the_sdk_does(stack, client.client.client_id, client.client_secret)
    assert_oauth_error(old, 401, "invalid_client")
    assert_token(as_the_sdk_does(stack, client.client.client_id, rotated.client_secret), client)


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("", "invalid_request"),
        ("grant_type=password", "unsupported_grant_type"),
        ("grant_type=client_credentials", "invalid_request"),
        ("grant_type=client_credentials&client_id=twc_x", "invalid_request"),
        ("grant_type=client_credentials&grant_type=client_credentials", "invalid_request"),
    ],
)
def test_bad_requests(stack: AuthStack, query: str, error: str) -> None:
    response = stack.http.post(f"/auth/oauth2/token?{query}")
    assert_oauth_error(response, 400, error)


def test_a_parameter_twice_across_query_and_form(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = stack.http.post(
        f"/auth/oauth2/token?client_id={client.client.client_id}",
        data={
            "grant_type": "client_credentials",
            "client_id": client.client.client_id,
            "client_secret": client.client_secret,
        },
    )
    assert "more than once" in assert_oauth_error(response, 400, "invalid_request")


def test_basic_and_parameters_together(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = stack.http.post(
        "/auth/oauth2/token",
        data={"grant_type": "client_credentials", "client_secret": client.client_secret},
        auth=(client.client.client_id, client.client_secret),
    )
    assert_oauth_error(response, 400, "invalid_request")


def test_malformed_basic(stack: AuthStack) -> None:
    garbage = base64.b64encode(b"no colon here").decode()
    response = stack.http.post(
        "/auth/oauth2/token?grant_type=client_credentials",
        headers={"Authorization": f"Basic {garbage}"},
    )
    assert_oauth_error(response, 400, "invalid_request")


def test_host_naming_no_tenant(stack: AuthStack) -> None:
    client = stack.register(new_org())
    response = stack.http.post(
        "/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client.client.client_id, client.client_secret),
        headers={"Host": "127.0.0.1:8000"},
    )
    assert "names no tenant" in assert_oauth_error(response, 400, "invalid_request")


def test_oversized_form(stack: AuthStack) -> None:
    response = stack.http.post("/auth/oauth2/token", data={"grant_type": "x" * 10_000})
    assert_oauth_error(response, 413, "invalid_request")


def test_audit_log(stack: AuthStack) -> None:
    client = stack.register(new_org())
    client_id = client.client.client_id
    stack.fetch_token(client)
    as_the_sdk_does(stack, client_id, "tws_wrong-secret")
    # A secret pasted into the client-id field must not end up in the log.
    as_the_sdk_does(stack, client.client_secret, client.client_secret)
    events = stack.services.auth.audit.recent(10)
    mine = [(e.event, e.detail) for e in events if e.client_id == client_id]
    assert ("token_refused", "wrong_secret") in mine
    assert ("token_issued", None) in mine
    assert ("client_created", None) in mine
    pasted = events[0]
    assert (pasted.event, pasted.client_id, pasted.detail) == (
        "token_refused",
        None,
        "unknown_client",
    )
    assert all(client.client_secret not in repr(event) for event in events)


def test_failed_attempts_are_limited_per_client(database_url: str, tmp_path: Path) -> None:
    with auth_stack(
        tmp_path, database_url=database_url, token_failures_per_minute_per_client=3
    ) as stack:
        client = stack.register(new_org())
        for _ in range(3):
            wrong = as_the_sdk_does(stack, client.client.client_id, "tws_guess")
            assert_oauth_error(wrong, 401, "invalid_client")
        # Past the limit even the right secret waits: guessing must not pay.
        blocked = as_the_sdk_does(stack, client.client.client_id, client.client_secret)
        assert_oauth_error(blocked, 429, "temporarily_unavailable")
        assert int(blocked.headers["retry-after"]) >= 1
        # Other clients are not affected.
        other = stack.register(new_org())
        assert_token(as_the_sdk_does(stack, other.client.client_id, other.client_secret), other)
        # Nor is the client itself elsewhere: knowing its id is not enough to lock it out.
        elsewhere = TestClient(
            stack.http.app, base_url=str(stack.http.base_url), client=("203.0.113.20", 40000)
        )
        away = as_the_sdk_does(
            AuthStack(stack.services, elsewhere), client.client.client_id, client.client_secret
        )
        assert_token(away, client)


def test_failed_attempts_are_limited_per_address(database_url: str, tmp_path: Path) -> None:
    with auth_stack(
        tmp_path, database_url=database_url, token_failures_per_minute_per_address=4
    ) as stack:
        for _ in range(4):
            guess = as_the_sdk_does(stack, stack.register(new_org()).client.client_id, "tws_x")
            assert_oauth_error(guess, 401, "invalid_client")
        client = stack.register(new_org())
        blocked = as_the_sdk_does(stack, client.client.client_id, client.client_secret)
        assert_oauth_error(blocked, 429, "temporarily_unavailable")


def test_tokens_are_per_tenant_host(stack: AuthStack) -> None:
    client = stack.register(new_org(), tenant="globex")
    token = stack.fetch_token(client, tenant="globex")
    assert jwt.decode(token, options={"verify_signature": False})["aud"] == "globex"
    response = stack.http.post(
        "/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client.client.client_id, client.client_secret),
        headers={"Host": host("ws-globex")},
    )
    assert response.status_code == 200
