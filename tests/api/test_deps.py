"""Who gets past the gate: the full matrix of bad tokens, organizations and tenants, each with
its status and code (docs/protocol/interface.md §2, §3, §7), on SQLite and on PostgreSQL."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.api.stack import HS_SECRET, AuthStack, auth_stack, host, new_org, passed_the_gate
from threadwise.auth.credentials import new_client_id


def assert_refused(response: httpx2.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["state"] == "error"
    assert body["actionType"] == "summarize"
    assert body["error"]["code"] == code
    assert body["message"]["results"][0]["response"][0]["error_code"] == code
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Bearer")
    message: str = body["error"]["message"]
    return message


def claims(stack: AuthStack, org: str, **overrides: Any) -> dict[str, Any]:
    """Claims a token of a real, enabled client of tenant acme would carry."""
    client = stack.register(org)
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": "threadwise",
        "aud": "acme",
        "sub": client.client.client_id,
        "orgs": [org],
        "scope": "superpowers",
        "iat": now,
        "exp": now + 600,
        "jti": "test",
    }
    base.update(overrides)
    return {key: value for key, value in base.items() if value is not None}


def hs256(payload: dict[str, Any], secret: str | bytes = HS_SECRET, **header: Any) -> str:
    return jwt.encode(payload, secret, algorithm="HS256", headers=header)


def kid_of(stack: AuthStack) -> str:
    return stack.services.auth.keys.current.kid


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def handmade(header: dict[str, Any], payload: dict[str, Any], secret: bytes | None) -> str:
    """A JWT signed by hand: HMAC-SHA256 with ``secret``, or no signature at all."""
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(payload).encode())}"
    if secret is None:
        return signing_input + "."
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


# --- the token is good ---------------------------------------------------------------------


def test_a_valid_token_gets_through(stack: AuthStack) -> None:
    org = new_org()
    token = stack.fetch_token(stack.register(org))
    assert passed_the_gate(stack.call(org, token))


def test_the_scheme_is_case_insensitive(stack: AuthStack) -> None:
    org = new_org()
    token = stack.fetch_token(stack.register(org))
    assert passed_the_gate(stack.call(org, authorization=f"bearer  {token}"))


# --- the token is missing or bad -----------------------------------------------------------


def test_missing_token(stack: AuthStack) -> None:
    message = assert_refused(stack.call(new_org()), 401, "MISSING_TOKEN")
    assert "Authorization: Bearer" in message


@pytest.mark.parametrize(
    "authorization",
    ["Bearer", "Bearer not-a-jwt", "Bearer a.b.c", "Token abc.def.ghi", "Basic dXNlcjpwYXNz"],
)
def test_malformed_authorization(stack: AuthStack, authorization: str) -> None:
    assert_refused(stack.call(new_org(), authorization=authorization), 401, "INVALID_TOKEN")


def test_wrong_signature(stack: AuthStack) -> None:
    org = new_org()
    forged = hs256(
        claims(stack, org), "another secret, just as long as the real one", kid=kid_of(stack)
    )
    message = assert_refused(stack.call(org, forged), 401, "INVALID_TOKEN")
    assert "signature" in message


def test_tampered_claims(stack: AuthStack) -> None:
    org, other = new_org(), new_org()
    header, payload, signature = stack.fetch_token(stack.register(org)).split(".")
    claimed = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claimed["orgs"] = [other]
    tampered = f"{header}.{_b64(json.dumps(claimed).encode())}.{signature}"
    assert_refused(stack.call(other, tampered), 401, "INVALID_TOKEN")


def test_alg_none(stack: AuthStack) -> None:
    org = new_org()
    unsigned = handmade(
        {"alg": "none", "typ": "JWT", "kid": kid_of(stack)}, claims(stack, org), None
    )
    assert_refused(stack.call(org, unsigned), 401, "INVALID_TOKEN")


def test_rs256_token_for_an_hs256_key(stack: AuthStack) -> None:
    org = new_org()
    attacker = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = jwt.encode(
        claims(stack, org), attacker, algorithm="RS256", headers={"kid": kid_of(stack)}
    )
    message = assert_refused(stack.call(org, token), 401, "INVALID_TOKEN")
    assert "HS256" in message


def test_unknown_key_id(stack: AuthStack) -> None:
    org = new_org()
    assert_refused(stack.call(org, hs256(claims(stack, org), kid="nobody")), 401, "INVALID_TOKEN")
    assert_refused(stack.call(org, hs256(claims(stack, org))), 401, "INVALID_TOKEN")


def test_expired(stack: AuthStack) -> None:
    org = new_org()
    now = int(time.time())
    token = hs256(claims(stack, org, iat=now - 7200, exp=now - 3600), kid=kid_of(stack))
    message = assert_refused(stack.call(org, token), 401, "TOKEN_EXPIRED")
    assert "/auth/oauth2/token" in message
    assert stack.call(org, token).json()["error"]["retryable"] is True


def test_not_yet_valid(stack: AuthStack) -> None:
    org = new_org()
    now = int(time.time())
    early = hs256(claims(stack, org, iat=now + 3600, exp=now + 7200), kid=kid_of(stack))
    assert "not valid yet" in assert_refused(stack.call(org, early), 401, "INVALID_TOKEN")
    not_before = hs256(claims(stack, org, nbf=now + 3600), kid=kid_of(stack))
    assert_refused(stack.call(org, not_before), 401, "INVALID_TOKEN")


@pytest.mark.parametrize("claim", ["sub", "orgs", "exp", "aud", "iss", "jti", "iat"])
def test_missing_claim(stack: AuthStack, claim: str) -> None:
    org = new_org()
    token = hs256(claims(stack, org, **{claim: None}), kid=kid_of(stack))
    assert_refused(stack.call(org, token), 401, "INVALID_TOKEN")


def test_another_issuer(stack: AuthStack) -> None:
    org = new_org()
    token = hs256(claims(stack, org, iss="someone-else"), kid=kid_of(stack))
    assert_refused(stack.call(org, token), 401, "INVALID_TOKEN")


def test_unknown_client(stack: AuthStack) -> None:
    org = new_org()
    token = hs256(claims(stack, org, sub=new_client_id()), kid=kid_of(stack))
    assert_refused(stack.call(org, token), 401, "INVALID_TOKEN")


def test_revoked_client(stack: AuthStack) -> None:
    org = new_org()
    client = stack.register(org)
    token = stack.fetch_token(client)
    assert passed_the_gate(stack.call(org, token))
    stack.services.auth.clients.revoke(client.client.client_id)
    message = assert_refused(stack.call(org, token), 401, "INVALID_TOKEN")
    assert "revoked" in message


def test_revoked_elsewhere_is_refused_once_the_cache_expires(
    stack: AuthStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Revoked by the CLI or another replica: this replica's cached view lasts a few seconds."""
    from threadwise.services import build_client_registry

    org = new_org()
    client = stack.register(org)
    token = stack.fetch_token(client)
    assert passed_the_gate(stack.call(org, token))
    other = build_client_registry(stack.services.settings, stack.services.auth.database)
    other.revoke(client.client.client_id)
    registry = stack.services.auth.clients
    later = registry.clock() + registry.cache_seconds + 0.1
    monkeypatch.setattr(registry, "clock", lambda: later)
    assert_refused(stack.call(org, token), 401, "INVALID_TOKEN")


def test_rotated_secret_keeps_issued_tokens(stack: AuthStack) -> None:
    org = new_org()
    client = stack.register(org)
    token = stack.fetch_token(client)
    stack.services.auth.clients.rotate(client.client.client_id)
    assert passed_the_gate(stack.call(org, token))


# --- tenants -------------------------------------------------------------------------------


def test_another_tenants_token(stack: AuthStack) -> None:
    org = new_org()
    theirs = stack.fetch_token(stack.register(org, tenant="globex"))
    assert passed_the_gate(stack.call(org, theirs, tenant="globex"))
    message = assert_refused(stack.call(org, theirs, tenant="acme"), 401, "INVALID_TOKEN")
    assert "another tenant" in message


def test_websocket_host_form_names_the_same_tenant(stack: AuthStack) -> None:
    org = new_org()
    token = stack.fetch_token(stack.register(org))
    assert passed_the_gate(stack.call(org, token, tenant="ws-acme"))


@pytest.mark.parametrize("bad_host", ["localhost:8000", "threadwise.test", "acme.example.com"])
def test_host_naming_no_tenant(stack: AuthStack, bad_host: str) -> None:
    org = new_org()
    token = stack.fetch_token(stack.register(org))
    response = stack.http.post(
        "/message/summarize",
        json={"request": {}},
        headers={"Host": bad_host, "Authorization": f"Bearer {token}"},
    )
    assert "names no tenant" in assert_refused(response, 401, "INVALID_TOKEN")


def test_a_client_gets_no_token_on_another_tenants_host(stack: AuthStack) -> None:
    client = stack.register(new_org(), tenant="globex")
    response = stack.http.post(
        "/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client.client.client_id, client.client_secret),
        headers={"Host": host("acme")},
    )
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


# --- organizations -------------------------------------------------------------------------


def test_another_organization(stack: AuthStack) -> None:
    mine, theirs = new_org(), new_org()
    stack.register(theirs)
    token = stack.fetch_token(stack.register(mine))
    message = assert_refused(stack.call(theirs, token), 403, "FORBIDDEN_ORGANIZATION")
    assert "request.context.organizationId" in message
    assert passed_the_gate(stack.call(mine, token))


def test_a_client_of_several_organizations(stack: AuthStack) -> None:
    first, second = new_org(), new_org()
    token = stack.fetch_token(stack.register(first, second))
    assert passed_the_gate(stack.call(first, token))
    assert passed_the_gate(stack.call(second, token))


# --- order: refusals come before any work --------------------------------------------------


def test_401_comes_before_the_body_is_read(stack: AuthStack) -> None:
    response = stack.http.post(
        "/message/summarize",
        content=b"{not json",
        headers={"Content-Type": "application/json", "Content-Length": str(10**9)},
    )
    assert_refused(response, 401, "MISSING_TOKEN")


def test_unknown_actions_need_a_token_too(stack: AuthStack) -> None:
    response = stack.http.post("/message/elevate", json={})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "MISSING_TOKEN"


def test_open_endpoints(stack: AuthStack) -> None:
    for path in ("/healthz", "/version", "/openapi.json"):
        assert stack.http.get(path).status_code == 200, path
    assert stack.http.get("/readyz").status_code == 503  # open, and honest: no model loaded


# --- rate limits ---------------------------------------------------------------------------


def test_requests_per_minute(stack: AuthStack) -> None:
    org, other = new_org(), new_org()
    token = stack.fetch_token(stack.register(org, other, requests_per_minute=2))
    assert passed_the_gate(stack.call(org, token))
    assert passed_the_gate(stack.call(org, token))
    response = stack.call(org, token)
    message = assert_refused(response, 429, "RATE_LIMITED")
    assert org in message
    assert 1 <= int(response.headers["retry-after"]) <= 30
    assert response.json()["error"]["retryable"] is True
    assert response.json()["error"]["retryAfter"] == int(response.headers["retry-after"])
    # Another organization's limit is its own, even for the same client.
    assert passed_the_gate(stack.call(other, token))


def test_retry_after_is_the_wait_rounded_up(
    stack: AuthStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """11 a minute is one every 5.45 s: rounded to the nearest second, Retry-After said 5,
    and a client that waited that long was refused again."""
    frozen = time.monotonic_ns()
    monkeypatch.setattr(stack.services.auth.limiter, "clock", lambda: frozen)
    org = new_org()
    token = stack.fetch_token(stack.register(org, requests_per_minute=11))
    for _ in range(11):
        assert passed_the_gate(stack.call(org, token))
    response = stack.call(org, token)
    assert_refused(response, 429, "RATE_LIMITED")
    assert response.headers["retry-after"] == "6"


def test_the_limit_belongs_to_the_organization_not_the_client(stack: AuthStack) -> None:
    org = new_org()
    first = stack.fetch_token(stack.register(org, requests_per_minute=1))
    second = stack.fetch_token(stack.register(org, requests_per_minute=1))
    assert passed_the_gate(stack.call(org, first))
    assert_refused(stack.call(org, second), 429, "RATE_LIMITED")


def test_characters_per_minute(stack: AuthStack) -> None:
    org = new_org()
    token = stack.fetch_token(stack.register(org, characters_per_minute=100))
    assert passed_the_gate(stack.call(org, token, content="x" * 30))
    response = stack.call(org, token, content="x" * 30)
    assert_refused(response, 429, "RATE_LIMITED")
    assert int(response.headers["retry-after"]) >= 1


def test_refused_requests_do_not_use_up_the_limit(stack: AuthStack) -> None:
    org = new_org()
    token = stack.fetch_token(stack.register(org, requests_per_minute=1))
    for _ in range(3):
        assert_refused(stack.call(org), 401, "MISSING_TOKEN")
        assert_refused(stack.call(new_org(), token), 403, "FORBIDDEN_ORGANIZATION")
    assert passed_the_gate(stack.call(org, token))


# --- keys ----------------------------------------------------------------------------------

OLD_SECRET = "the previous HS256 secret of this service, retired"
OLDER_SECRET = "the HS256 secret before that one, retired long ago"


def test_retired_keys(database_url: str, tmp_path: Path) -> None:
    now = datetime.now(UTC)
    retired = [
        {"kid": "old", "secret": OLD_SECRET, "retired_at": now - timedelta(minutes=5)},
        {"kid": "older", "secret": OLDER_SECRET, "retired_at": now - timedelta(hours=2)},
    ]
    with auth_stack(tmp_path, database_url=database_url, jwt_retired_keys=retired) as stack:
        org = new_org()
        before_retirement = int((now - timedelta(minutes=10)).timestamp())
        # Signed by the previous key before it was retired: valid until it expires.
        token = hs256(claims(stack, org, iat=before_retirement), OLD_SECRET, kid="old")
        assert passed_the_gate(stack.call(org, token))
        # Signed by the previous key after it was retired: someone else holds that key.
        late = hs256(claims(stack, org), OLD_SECRET, kid="old")
        assert "after that key was retired" in assert_refused(
            stack.call(org, late), 401, "INVALID_TOKEN"
        )
        # A key retired longer ago than a token lives: nothing it signed is valid any more,
        # even a token that claims to live for a day.
        long_lived = claims(stack, org, iat=before_retirement - 7200, exp=int(time.time()) + 86400)
        message = assert_refused(
            stack.call(org, hs256(long_lived, OLDER_SECRET, kid="older")), 401, "INVALID_TOKEN"
        )
        assert "retired key" in message
        # New tokens come from the current key.
        fresh = stack.fetch_token(stack.register(org))
        assert jwt.get_unverified_header(fresh)["kid"] == kid_of(stack) != "old"


def test_rs256(database_url: str, tmp_path: Path) -> None:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_file = tmp_path / "key.pem"
    key_file.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with auth_stack(
        tmp_path, database_url=database_url, jwt_algorithm="RS256", jwt_private_key_file=key_file
    ) as stack:
        org = new_org()
        token = stack.fetch_token(stack.register(org))
        assert jwt.get_unverified_header(token)["alg"] == "RS256"
        assert passed_the_gate(stack.call(org, token))
        # The classic confusion: HMAC-signed with the (public) key as the secret.
        header = {"alg": "HS256", "typ": "JWT", "kid": kid_of(stack)}
        confused = handmade(header, claims(stack, org), public_pem)
        assert "RS256" in assert_refused(stack.call(org, confused), 401, "INVALID_TOKEN")
        # And an HS256 token with the service's old default secret is no good either.
        assert_refused(
            stack.call(org, hs256(claims(stack, org), kid=kid_of(stack))), 401, "INVALID_TOKEN"
        )


# --- API keys ---------------------------------------------------------------------------------


def test_an_api_key_acts_as_its_client(stack: AuthStack) -> None:
    org = new_org()
    client = stack.register(org).client
    key = stack.services.auth.api_keys.create(client.client_id, "script").key
    assert passed_the_gate(stack.call(org, key))
    message = assert_refused(stack.call(new_org(), key), 403, "FORBIDDEN_ORGANIZATION")
    assert org in message
    # Its client's tenant only.
    assert_refused(stack.call(org, key, tenant="globex"), 401, "INVALID_TOKEN")


def test_a_revoked_api_key_is_refused_with_what_to_do(stack: AuthStack) -> None:
    org = new_org()
    client = stack.register(org).client
    created = stack.services.auth.api_keys.create(client.client_id)
    stack.services.auth.api_keys.revoke(created.record.key_id)
    message = assert_refused(stack.call(org, created.key), 401, "INVALID_TOKEN")
    assert "api-keys" in message and created.key not in message
    shaped_but_unknown = created.key[:-3] + "xyz"
    assert_refused(stack.call(org, shaped_but_unknown), 401, "INVALID_TOKEN")
