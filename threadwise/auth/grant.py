"""The OAuth2 client-credentials grant behind ``POST /auth/oauth2/token``.

Errors are OAuth2's own JSON (`docs/protocol/interface.md` §3), not the superpower error
envelope. Every answer about a client, wrong secret, unknown id, revoked or another tenant's,
is the same ``invalid_client``: only the audit log tells them apart.

Failed attempts are limited per client id from one address, and per address, as OAuth
servers do: a guesser is stopped (past the limit even the right secret waits, so guessing
does not pay), but failures from one address never lock the client out elsewhere. An IPv6
address counts as its /64 network, which one host usually holds whole. Each request reserves
a failure before its secret is checked and gives it back when the secret is right, so that
concurrent guesses cannot all pass a limit none of them has counted yet.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from threadwise.auth.audit import AuditEntry, AuditLog, RepeatedEvents
from threadwise.auth.clients import ClientRegistry, SecretCheck
from threadwise.auth.credentials import client_reference, is_client_id
from threadwise.auth.ratelimit import WINDOW_SECONDS, Quota, RateLimiter
from threadwise.auth.tenancy import tenant_of
from threadwise.auth.tokens import TokenIssuer

log = logging.getLogger("threadwise.auth")

GRANT_TYPE = "client_credentials"
# Refused before the secret is checked: as many as a client can send, so counted (audit.py).
TOO_MANY_FAILURES = "too_many_failures"


class OAuthError(Exception):
    """An OAuth2 error answer: ``{"error", "error_description"}`` with its HTTP status."""

    def __init__(
        self,
        status: int,
        error: str,
        description: str,
        *,
        retry_after: float | None = None,
        basic_challenge: bool = False,
    ) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.retry_after = retry_after
        # RFC 6749 §5.2: a client that tried HTTP Basic is answered with a Basic challenge.
        self.basic_challenge = basic_challenge

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


@dataclass(frozen=True)
class ClientCredentials:
    grant_type: str | None
    client_id: str | None
    client_secret: str | None
    via_basic: bool = False


@dataclass(frozen=True)
class FailureLimits:
    """Failed token requests a minute: for one client id from one address, and from one
    address whatever the client id."""

    per_client_per_minute: int
    per_address_per_minute: int


@dataclass(frozen=True)
class TokenResponse:
    access_token: str
    expires_in: int
    scope: str

    def body(self) -> dict[str, Any]:
        # `token` repeats `access_token` for clients that read that name
        # (docs/protocol/interface.md §3).
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "token": self.access_token,
            "scope": self.scope,
        }


class ClientCredentialsGrant:
    def __init__(
        self,
        clients: ClientRegistry,
        issuer: TokenIssuer,
        audit: AuditLog,
        limiter: RateLimiter,
        failure_limits: FailureLimits,
        base_domain: str | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clients = clients
        self.issuer = issuer
        self.audit = audit
        self.limiter = limiter
        self.failure_limits = failure_limits
        self.base_domain = base_domain
        self.limited = RepeatedEvents(WINDOW_SECONDS, clock)

    async def issue(
        self, credentials: ClientCredentials, host: str | None, address: str | None
    ) -> TokenResponse:
        if credentials.grant_type != GRANT_TYPE:
            raise _grant_type_error(credentials.grant_type)
        client_id, secret = credentials.client_id, credentials.client_secret
        if not client_id or not secret:
            raise OAuthError(
                400,
                "invalid_request",
                "Send client_id and client_secret: in the query string, a form body, or HTTP "
                "Basic authentication.",
            )
        tenant = tenant_of(host, self.base_domain)
        if tenant is None:
            raise OAuthError(
                400,
                "invalid_request",
                f"The host {host!r} names no tenant; request tokens from "
                f"<tenant>.{self.base_domain}.",
            )
        failures = self._failure_quotas(client_id, address)
        wait = await self.limiter.acquire(failures)  # released below if the secret is right
        if wait > 0:
            await self._refuse(tenant, client_id, address, TOO_MANY_FAILURES)
            raise OAuthError(
                429,
                "temporarily_unavailable",
                "Too many failed token requests for this client or from this address; retry "
                "after the time in the Retry-After header.",
                retry_after=wait,
            )
        check = await anyio.to_thread.run_sync(self.clients.check_secret, client_id, secret)
        reason = _refusal(check, tenant)
        if reason is not None or check.client is None:
            await self._refuse(tenant, client_id, address, reason or "unknown_client")
            raise OAuthError(
                401,
                "invalid_client",
                "Unknown client, wrong secret, or a revoked client. Check the client id and "
                "secret that `threadwise clients create` printed.",
                basic_challenge=credentials.via_basic,
            )
        await self.limiter.release(failures)
        client = check.client
        issued = self.issuer.issue(tenant, client.client_id, client.organizations)
        await anyio.to_thread.run_sync(self.clients.mark_used, client.client_id, address)
        return TokenResponse(issued.token, issued.expires_in, issued.scope)

    def _failure_quotas(self, client_id: str, address: str | None) -> list[Quota]:
        limits = self.failure_limits
        source = failure_source(address) if address else "unknown"
        quotas = [
            Quota(
                f"token-failures:client:{client_reference(client_id)}:{source}",
                limits.per_client_per_minute,
            )
        ]
        if address:
            quotas.append(Quota(f"token-failures:address:{source}", limits.per_address_per_minute))
        return quotas

    def close(self) -> None:
        """Record the counts of refusals not yet recorded (blocking)."""
        self._record(self.limited.flush())

    async def _refuse(self, tenant: str, client_id: str, address: str | None, reason: str) -> None:
        details: dict[str, str | None] = {
            "tenant": tenant,
            "client_id": client_id,
            "address": address,
            "detail": reason,
        }
        if reason == TOO_MANY_FAILURES:
            source = f"{tenant}:{failure_source(address) if address else 'unknown'}"
            entries = self.limited.seen(source, "token_refused", **details)
        else:  # the limits bound these: a few a minute an address
            entries = [AuditEntry("token_refused", details)]
        if entries:
            await anyio.to_thread.run_sync(self._record, entries)

    def _record(self, entries: list[AuditEntry]) -> None:
        """Log and record ``entries`` (blocking)."""
        for entry in entries:
            client_id, address = entry.details["client_id"] or "", entry.details["address"]
            shown = client_reference(client_id) if is_client_id(client_id) else "(not a client id)"
            log.info(
                "token refused for %s from %s: %s", shown, address or "?", entry.details["detail"]
            )
            self.audit.record(entry.event, **entry.details)


def failure_source(address: str) -> str:
    """Where failed token requests are counted from: an IPv6 address's /64 network, an IPv4
    address (also when mapped into IPv6), or the address as given if it is neither."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _refusal(check: SecretCheck, tenant: str) -> str | None:
    """Why the client gets no token (for the audit log), or ``None`` if it gets one."""
    if check.client is None:
        return "unknown_client"
    if not check.matches:
        return "wrong_secret"
    if not check.client.enabled:
        return "revoked"
    if check.client.tenant != tenant:
        return "other_tenant"
    return None


def _grant_type_error(grant_type: str | None) -> OAuthError:
    if not grant_type:
        return OAuthError(400, "invalid_request", f"Send grant_type={GRANT_TYPE}.")
    return OAuthError(
        400,
        "unsupported_grant_type",
        f"Only grant_type={GRANT_TYPE} is supported, got {grant_type[:64]!r}.",
    )
