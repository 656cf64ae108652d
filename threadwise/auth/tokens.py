"""Signed JWT access tokens: issuing them, and checking one down to its claims.

Claims (`docs/protocol/interface.md` §3): ``iss``, ``aud`` (the tenant), ``sub`` (the client
id), ``orgs``, ``scope``, ``iat``, ``exp`` and ``jti``. A key verifies only tokens of its own
algorithm, so ``alg: none`` and HS256/RS256 confusion never reach a signature check. Times
(``exp``, ``iat``, ``nbf``) are checked against the verifier's clock, not the library's.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import jwt

from threadwise.auth.keys import Key, KeyRing
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

SCOPE = "superpowers"
_OWN_CLAIMS = ["iss", "aud", "sub", "orgs", "scope", "iat", "exp", "jti"]
_EXTERNAL_CLAIMS = ["iss", "aud", "sub", "orgs", "iat", "exp"]
_FETCH_NEW = "Fetch a new token from POST /auth/oauth2/token."
# A token checked once is taken at its word for this long (never past its expiry): a client
# sends the same token with every request, and a signature check costs more than the rest of
# a fast translation's bookkeeping.
_VERIFIED_SECONDS = 30.0
_VERIFIED_ENTRIES = 4096


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_in: int
    scope: str


@dataclass(frozen=True)
class Claims:
    tenant: str
    client_id: str
    organizations: frozenset[str]
    scope: str
    token_id: str
    expires_at: float
    # Issued by an external identity provider (not a client of our registry).
    external: bool = False


class TokenIssuer:
    def __init__(
        self,
        keys: KeyRing,
        issuer: str,
        lifetime_seconds: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.keys = keys
        self.issuer = issuer
        self.lifetime_seconds = lifetime_seconds
        self.clock = clock

    def issue(self, tenant: str, client_id: str, organizations: Iterable[str]) -> IssuedToken:
        now = int(self.clock())
        key = self.keys.current
        claims = {
            "iss": self.issuer,
            "aud": tenant,
            "sub": client_id,
            "orgs": sorted(organizations),
            "scope": SCOPE,
            "iat": now,
            "exp": now + self.lifetime_seconds,
            "jti": secrets.token_urlsafe(16),
        }
        token = jwt.encode(claims, key.signing, algorithm=key.algorithm, headers={"kid": key.kid})
        return IssuedToken(token, self.lifetime_seconds, SCOPE)


def invalid(reason: str) -> ServiceError:
    return ServiceError(ErrorCode.INVALID_TOKEN, f"The token is not valid: {reason}. {_FETCH_NEW}")


class ExternalIssuer:
    """An identity provider whose tokens are checked against its published keys (JWKS)."""

    def __init__(self, issuer: str, jwks_url: str) -> None:
        self.issuer = issuer
        self._client = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=300, timeout=5)

    def key_for(self, token: str) -> Key:
        try:
            jwk = self._client.get_signing_key_from_jwt(token)
        except jwt.PyJWKClientConnectionError as exc:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                f"Could not fetch the signing keys of the identity provider {self.issuer}: "
                f"{exc}. Retry; if it persists, check THREADWISE_JWT_JWKS_URL.",
            ) from None
        except (jwt.PyJWKClientError, jwt.PyJWKError, jwt.DecodeError):
            raise invalid(f"no key of the identity provider {self.issuer} signed it") from None
        return Key(jwk.key_id or "", jwk.algorithm_name, None, jwk.key)


class TokenVerifier:
    def __init__(
        self,
        keys: KeyRing,
        issuer: str,
        lifetime_seconds: int,
        leeway_seconds: float,
        external: ExternalIssuer | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.keys = keys
        self.issuer = issuer
        self.lifetime_seconds = lifetime_seconds
        self.leeway_seconds = leeway_seconds
        self.external = external
        self.clock = clock
        self._verified: OrderedDict[tuple[str, str], tuple[float, Claims]] = OrderedDict()
        self._lock = threading.Lock()

    def is_local(self, token: str) -> bool:
        """Whether checking ``token`` needs no network (its key is one of ours, or unknown)."""
        return self.external is None or self.keys.find(_kid(token) or "") is not None

    def verify(self, token: str, tenant: str) -> Claims:
        """The token's claims, or ``INVALID_TOKEN`` / ``TOKEN_EXPIRED`` saying what is wrong."""
        now = self.clock()
        with self._lock:
            memo = self._verified.get((token, tenant))
        if memo is not None and now < memo[0]:
            return memo[1]
        kid = _kid(token)
        key = self.keys.find(kid) if kid else None
        if key is not None:
            claims = self._own(token, key, tenant)
            # Within its lifetime; a key retired meanwhile is noticed within _VERIFIED_SECONDS.
            until = min(now + _VERIFIED_SECONDS, claims.expires_at)
            if key.retired_at is not None:
                until = min(until, key.retired_at.timestamp())
            with self._lock:
                self._verified[(token, tenant)] = (until, claims)
                if len(self._verified) > _VERIFIED_ENTRIES:
                    self._verified.popitem(last=False)
            return claims
        if self.external is not None:
            return self._external(token, self.external, tenant)
        if kid is None:
            raise invalid("its header names no key (kid)")
        raise invalid("it was signed with a key this service does not know")

    def _own(self, token: str, key: Key, tenant: str) -> Claims:
        now = self.clock()
        if key.retired_at is not None:
            grace_end = key.retired_at.timestamp() + self.lifetime_seconds + self.leeway_seconds
            if now > grace_end:
                raise invalid("it was signed with a retired key whose tokens have all expired")
        claims = self._decode(token, key, tenant, self.issuer, _OWN_CLAIMS)
        if key.retired_at is not None and claims["iat"] > key.retired_at.timestamp():
            raise invalid("it was signed with a retired key after that key was retired")
        return _claims(claims, tenant, external=False)

    def _external(self, token: str, external: ExternalIssuer, tenant: str) -> Claims:
        claims = self._decode(token, external.key_for(token), tenant, external.issuer, [])
        return _claims(claims, tenant, external=True)

    def _decode(
        self, token: str, key: Key, tenant: str, issuer: str, required: list[str]
    ) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.verifying,
                algorithms=[key.algorithm],
                audience=tenant,
                issuer=issuer,
                options={
                    "require": required or _EXTERNAL_CLAIMS,
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                },
            )
        except jwt.InvalidAudienceError:
            raise invalid(
                f"it was issued for another tenant, not {tenant!r}; fetch one from this "
                "tenant's host"
            ) from None
        except jwt.InvalidIssuerError:
            raise invalid("another issuer issued it") from None
        except jwt.MissingRequiredClaimError as exc:
            raise invalid(f"it lacks the {exc.claim!r} claim") from None
        except jwt.InvalidAlgorithmError:
            raise invalid(f"its algorithm is not {key.algorithm}, the one its key uses") from None
        except jwt.InvalidSignatureError:
            raise invalid("its signature does not match") from None
        except jwt.InvalidTokenError:
            raise invalid("it is not a well-formed signed JWT") from None
        self._check_times(claims)
        return claims

    def _check_times(self, claims: dict[str, Any]) -> None:
        now, leeway = self.clock(), self.leeway_seconds
        expires = _time_claim(claims, "exp")
        if expires is not None and expires <= now - leeway:
            raise ServiceError(ErrorCode.TOKEN_EXPIRED, f"The token has expired. {_FETCH_NEW}")
        for name in ("iat", "nbf"):
            start = _time_claim(claims, name)
            if start is not None and start > now + leeway:
                raise invalid("it is not valid yet (its iat or nbf is in the future)")


def _time_claim(claims: dict[str, Any], name: str) -> float | None:
    """A time claim (seconds since 1970), ``None`` if absent; ``INVALID_TOKEN`` if not one."""
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise invalid(f"its {name!r} claim is not a time (a number of seconds since 1970)")
    return float(value)


def _kid(token: str) -> str | None:
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.InvalidTokenError:
        raise invalid("it is not a well-formed signed JWT") from None
    return kid if isinstance(kid, str) and kid else None


def _claims(claims: dict[str, Any], tenant: str, *, external: bool) -> Claims:
    orgs = claims.get("orgs")
    if not isinstance(orgs, list) or not all(isinstance(org, str) for org in orgs):
        raise invalid("its 'orgs' claim is not a list of organization ids")
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise invalid("its 'sub' claim is not a client id")
    return Claims(
        tenant=tenant,
        client_id=subject,
        organizations=frozenset(orgs),
        scope=str(claims.get("scope", "")),
        token_id=str(claims.get("jti", "")),
        expires_at=float(claims["exp"]),
        external=external,
    )
