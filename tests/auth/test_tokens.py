"""The verifier on its own, and tokens of an external identity provider checked against
its JWKS, served here from 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from threadwise.auth.keys import KeyRing, hmac_key
from threadwise.auth.tokens import ExternalIssuer, TokenIssuer, TokenVerifier
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

SECRET = "a token secret of the tests, 32 bytes or more"
IDP = "https://idp.example.test/"


def ring() -> KeyRing:
    return KeyRing(hmac_key(SECRET, "k1"), [])


def refusal(verifier: TokenVerifier, token: str, tenant: str = "acme") -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        verifier.verify(token, tenant)
    return caught.value


def test_issue_then_verify() -> None:
    keys = ring()
    issued = TokenIssuer(keys, "threadwise", 600).issue("acme", "twc_1", ["b", "a"])
    claims = TokenVerifier(keys, "threadwise", 600, 10).verify(issued.token, "acme")
    assert claims.client_id == "twc_1"
    assert claims.tenant == "acme"
    assert claims.organizations == {"a", "b"}
    assert claims.scope == "superpowers"
    assert not claims.external
    assert abs(claims.expires_at - (time.time() + 600)) < 5
    assert issued.expires_in == 600


def test_leeway_tolerates_small_clock_differences() -> None:
    keys = ring()
    skewed = TokenIssuer(keys, "threadwise", 600, clock=lambda: time.time() + 5).issue(
        "acme", "twc_1", ["a"]
    )
    assert TokenVerifier(keys, "threadwise", 600, 10).verify(skewed.token, "acme")
    refused = refusal(TokenVerifier(keys, "threadwise", 600, 0), skewed.token)
    assert refused.code is ErrorCode.INVALID_TOKEN


def test_expired_is_its_own_code() -> None:
    keys = ring()
    old = TokenIssuer(keys, "threadwise", 60, clock=lambda: time.time() - 3600)
    token = old.issue("acme", "twc_1", ["a"]).token
    assert refusal(TokenVerifier(keys, "threadwise", 60, 10), token).code is ErrorCode.TOKEN_EXPIRED


def test_a_verified_token_is_remembered_only_for_its_tenant_and_lifetime() -> None:
    keys = ring()
    now = [time.time()]
    token = TokenIssuer(keys, "threadwise", 60, clock=lambda: now[0]).issue("acme", "twc_1", ["a"])
    verifier = TokenVerifier(keys, "threadwise", 60, 0, clock=lambda: now[0])
    first = verifier.verify(token.token, "acme")
    assert verifier.verify(token.token, "acme") is first  # remembered, not decoded again
    assert refusal(verifier, token.token, "globex").code is ErrorCode.INVALID_TOKEN
    now[0] = first.expires_at - 0.5
    assert verifier.verify(token.token, "acme") == first
    now[0] = first.expires_at
    assert refusal(verifier, token.token).code is ErrorCode.TOKEN_EXPIRED


def test_times_are_checked_on_the_verifiers_clock() -> None:
    keys = ring()
    token = TokenIssuer(keys, "threadwise", 60).issue("acme", "twc_1", ["a"]).token
    issued_at = time.time()
    later = TokenVerifier(keys, "threadwise", 60, 10, clock=lambda: issued_at + 71)
    assert refusal(later, token).code is ErrorCode.TOKEN_EXPIRED
    within_leeway = TokenVerifier(keys, "threadwise", 60, 10, clock=lambda: issued_at + 65)
    assert within_leeway.verify(token, "acme").client_id == "twc_1"
    earlier = TokenVerifier(keys, "threadwise", 60, 10, clock=lambda: issued_at - 30)
    refused = refusal(earlier, token)
    assert refused.code is ErrorCode.INVALID_TOKEN and "not valid yet" in refused.message


@pytest.mark.parametrize("bad", ["soon", None, True, float("nan"), float("inf")])
def test_times_that_are_not_numbers(bad: object) -> None:
    now = int(time.time())
    claims = {
        "iss": "threadwise",
        "aud": "acme",
        "sub": "twc_1",
        "orgs": ["a"],
        "scope": "s",
        "jti": "j",
        "iat": now,
        "exp": bad,
    }
    token = jwt.encode(claims, SECRET, algorithm="HS256", headers={"kid": "k1"})
    refused = refusal(TokenVerifier(ring(), "threadwise", 600, 10), token)
    assert refused.code is ErrorCode.INVALID_TOKEN


def test_claims_of_the_wrong_type() -> None:
    verifier = TokenVerifier(ring(), "threadwise", 600, 10)
    now = int(time.time())
    base = {"iss": "threadwise", "aud": "acme", "sub": "twc_1", "scope": "s", "jti": "j"}
    for bad in ({"orgs": "org-a"}, {"orgs": [1, 2]}, {"orgs": ["a"], "sub": 7}):
        claims = {**base, "iat": now, "exp": now + 60, **bad}
        token = jwt.encode(claims, SECRET, algorithm="HS256", headers={"kid": "k1"})
        assert refusal(verifier, token).code is ErrorCode.INVALID_TOKEN


# --- an external identity provider ---------------------------------------------------------


class _JWKS(BaseHTTPRequestHandler):
    keys: list[dict[str, Any]] = []  # noqa: RUF012 (set per test, read by the handler)

    def do_GET(self) -> None:
        body = json.dumps({"keys": self.keys}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def idp_key() -> Iterator[tuple[rsa.RSAPrivateKey, str]]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    _JWKS.keys = [{**jwk, "kid": "idp-1", "alg": "RS256", "use": "sig"}]
    server = HTTPServer(("127.0.0.1", 0), _JWKS)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield key, f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    server.shutdown()
    server.server_close()


def idp_token(key: Any, *, kid: str = "idp-1", algorithm: str = "RS256", **claims: Any) -> str:
    now = int(time.time())
    base = {"iss": IDP, "aud": "acme", "sub": "partner-app", "orgs": ["org-a"], "iat": now}
    payload = {**base, "exp": now + 300, **claims}
    return jwt.encode(payload, key, algorithm=algorithm, headers={"kid": kid})


def test_external_issuer(idp_key: tuple[rsa.RSAPrivateKey, str]) -> None:
    key, url = idp_key
    verifier = TokenVerifier(ring(), "threadwise", 600, 10, external=ExternalIssuer(IDP, url))
    token = idp_token(key)
    assert not verifier.is_local(token)
    claims = verifier.verify(token, "acme")
    assert claims.external
    assert claims.client_id == "partner-app"
    assert claims.organizations == {"org-a"}
    # Our own tokens still work alongside.
    own = TokenIssuer(verifier.keys, "threadwise", 600).issue("acme", "twc_1", ["a"]).token
    assert verifier.is_local(own)
    assert not verifier.verify(own, "acme").external


def test_external_refusals(idp_key: tuple[rsa.RSAPrivateKey, str]) -> None:
    key, url = idp_key
    verifier = TokenVerifier(ring(), "threadwise", 600, 10, external=ExternalIssuer(IDP, url))
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases = {
        "another key": idp_token(stranger),
        "unknown kid": idp_token(key, kid="idp-2"),
        "another tenant": idp_token(key, aud="globex"),
        "another issuer": idp_token(key, iss="https://evil.example.test/"),
        "no orgs": idp_token(key, orgs=None),
        "hs256 with the public key id": jwt.encode(
            {"iss": IDP, "aud": "acme", "sub": "x", "orgs": ["a"], "exp": 2**31},
            SECRET,
            algorithm="HS256",
            headers={"kid": "idp-1"},
        ),
    }
    for case, token in cases.items():
        assert refusal(verifier, token).code is ErrorCode.INVALID_TOKEN, case
    expired = idp_token(key, iat=int(time.time()) - 900, exp=int(time.time()) - 600)
    assert refusal(verifier, expired).code is ErrorCode.TOKEN_EXPIRED


def test_unreachable_identity_provider() -> None:
    verifier = TokenVerifier(
        ring(), "threadwise", 600, 10, external=ExternalIssuer(IDP, "http://127.0.0.1:9/jwks")
    )
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    refused = refusal(verifier, idp_token(key))
    assert refused.code is ErrorCode.PROCESSING_FAILED
    assert "THREADWISE_JWT_JWKS_URL" in refused.message
