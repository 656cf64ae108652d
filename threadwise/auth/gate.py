"""The one place where a request is let in or refused, whatever its transport.

Every superpower request goes through ``authenticate``, ``authorize`` and ``admit``, in that
order, in ``threadwise.serving.admission``; the WebSocket endpoint also calls ``authenticate``
at the upgrade (401 before the socket opens).
"""

from __future__ import annotations

import hmac
import ipaddress
import math
from dataclasses import dataclass

import anyio.to_thread

from threadwise.auth.api_keys import ApiKeyStore
from threadwise.auth.clients import ClientRecord, ClientRegistry
from threadwise.auth.credentials import API_KEY_PREFIX
from threadwise.auth.ratelimit import Quota, RateLimiter
from threadwise.auth.tenancy import tenant_of
from threadwise.auth.tokens import Claims, TokenVerifier, invalid
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


@dataclass(frozen=True)
class Limits:
    requests_per_minute: int
    characters_per_minute: int


@dataclass(frozen=True)
class Principal:
    """Who is calling: what its token says (tenant, client, organizations), and the limits
    of its client."""

    claims: Claims
    limits: Limits


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; ``None`` if there is none."""
    if authorization is None or not authorization.strip():
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError(
            ErrorCode.INVALID_TOKEN,
            "The Authorization header must be 'Bearer <token>', with a token from "
            "POST /auth/oauth2/token.",
        )
    return token.strip()


class Gatekeeper:
    def __init__(
        self,
        verifier: TokenVerifier,
        clients: ClientRegistry,
        limiter: RateLimiter,
        base_domain: str | None,
        defaults: Limits,
        api_keys: ApiKeyStore | None = None,
    ) -> None:
        self.verifier = verifier
        self.clients = clients
        self.limiter = limiter
        self.base_domain = base_domain
        self.defaults = defaults
        self.api_keys = api_keys

    async def authenticate(self, token: str | None, host: str | None) -> Principal:
        """Who ``token`` speaks for on ``host``; ``MISSING_TOKEN``, ``INVALID_TOKEN`` or
        ``TOKEN_EXPIRED`` otherwise."""
        if token is None:
            raise ServiceError(
                ErrorCode.MISSING_TOKEN,
                "This endpoint needs an access token: send 'Authorization: Bearer <token>' "
                "with a token from POST /auth/oauth2/token.",
            )
        tenant = tenant_of(host, self.base_domain)
        if tenant is None:
            raise ServiceError(
                ErrorCode.INVALID_TOKEN,
                f"The host {host!r} names no tenant, so no token is valid on it; call "
                f"<tenant>.{self.base_domain}, the host your token was issued on.",
            )
        if token.startswith(API_KEY_PREFIX) and self.api_keys is not None:
            return await self._key_holder(token, tenant)
        if self.verifier.is_local(token):
            claims = self.verifier.verify(token, tenant)
        else:  # an external issuer's keys may have to be fetched first
            claims = await anyio.to_thread.run_sync(self.verifier.verify, token, tenant)
        if claims.external:
            return Principal(claims, self.defaults)
        client = await self.clients.active(claims.client_id)
        if client is None or client.tenant != tenant:
            raise invalid("its client has been revoked, or is not registered")
        return Principal(claims, self._limits(client))

    async def _key_holder(self, key: str, tenant: str) -> Principal:
        """The client an API key acts as, as if it had sent one of its tokens."""
        assert self.api_keys is not None
        client = await self.api_keys.client_of(key)
        if client is None or client.tenant != tenant:
            raise ServiceError(
                ErrorCode.INVALID_TOKEN,
                "The API key is not valid here: it is unknown, revoked, its client is revoked, "
                "or it belongs to another tenant's host. `threadwise api-keys list` shows the "
                "keys; create one with `threadwise api-keys create --client CLIENT_ID`.",
            )
        claims = Claims(
            tenant=client.tenant,
            client_id=client.client_id,
            organizations=frozenset(client.organizations),
            scope="",
            token_id="",
            expires_at=math.inf,
        )
        return Principal(claims, self._limits(client))

    def _limits(self, client: ClientRecord) -> Limits:
        return Limits(
            client.requests_per_minute or self.defaults.requests_per_minute,
            client.characters_per_minute or self.defaults.characters_per_minute,
        )

    @staticmethod
    def authorize(
        principal: Principal,
        organization_id: str,
        field: str = "request.context.organizationId",
    ) -> None:
        """Let the caller act for ``organization_id`` (read from ``field``), or refuse:
        ``FORBIDDEN_ORGANIZATION``. Until this passes, the organization id is only what the
        request claims (not a label for metrics, say)."""
        organizations = principal.claims.organizations
        if organization_id not in organizations:
            allowed = ", ".join(repr(org) for org in sorted(organizations)[:5])
            raise ServiceError(
                ErrorCode.FORBIDDEN_ORGANIZATION,
                f"{field} {organization_id[:256]!r} is not an "
                f"organization this client may act for ({allowed}"
                f"{', …' if len(organizations) > 5 else ''}). Use a client "
                "registered for that organization.",
            )

    async def admit(
        self, principal: Principal, organization_id: str, characters: int, requests: int = 1
    ) -> None:
        """Let one request of ``characters`` characters in for ``organization_id``, which
        ``authorize`` has let the caller act for, or refuse it: ``RATE_LIMITED`` with the
        seconds to wait. ``requests``: so many let in together (a batch of jobs), whose
        characters sum to ``characters``."""
        limits = principal.limits
        # Keyed by tenant and organization: one organization's traffic never uses up
        # another's limits, whichever client sends it.
        scope = f"{principal.claims.tenant}:{organization_id}"
        wait = await self.limiter.acquire(
            [
                Quota(f"requests:{scope}", limits.requests_per_minute, requests),
                Quota(f"characters:{scope}", limits.characters_per_minute, characters),
            ]
        )
        if wait > 0:
            raise ServiceError(
                ErrorCode.RATE_LIMITED,
                f"Organization {organization_id[:256]!r} is over its rate limit "
                f"({limits.requests_per_minute} requests and "
                f"{limits.characters_per_minute} characters a minute). Retry after the "
                "time in the Retry-After header.",
                retry_after=wait,
            )


def check_metrics_access(
    authorization: str | None, expected: str | None, address: str | None
) -> None:
    """Let a scrape of ``/metrics`` in: with a metrics token configured, only
    ``Authorization: Bearer <metrics token>``; without one, only this machine (a loopback
    ``address``)."""
    if expected is None:
        if not _is_loopback(address):
            raise ServiceError(
                ErrorCode.MISSING_TOKEN,
                "/metrics answers only this machine unless the server has a metrics token: "
                "set THREADWISE_METRICS_TOKEN there and send 'Authorization: Bearer <it>'.",
            )
        return
    token = bearer_token(authorization)
    if token is None:
        raise ServiceError(
            ErrorCode.MISSING_TOKEN,
            "/metrics needs 'Authorization: Bearer <metrics token>' (THREADWISE_METRICS_TOKEN).",
        )
    if not hmac.compare_digest(token.encode(), expected.encode()):
        raise ServiceError(
            ErrorCode.INVALID_TOKEN,
            "The metrics token is wrong; use the value of THREADWISE_METRICS_TOKEN.",
        )


def _is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:  # not an IP address: a Unix socket's peer, a test client's name
        return False
