"""One attempt at delivering a webhook: a POST to a checked target, whose outcome is recorded,
never raised.

The connection goes to an address the target was checked with, never to a new DNS answer;
the Host header and TLS (SNI and the certificate's name) still carry the URL's host.
Redirects are not followed (a 3xx could lead anywhere), the whole attempt has one deadline,
and at most ``max_response_bytes`` of the answer are read. Attempts made together (``Sender``)
keep their connections alive for the next one to the same host.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx2

from threadwise import __version__
from threadwise.webhooks.targets import Target

USER_AGENT = f"threadwise-webhooks/{__version__}"


@dataclass(frozen=True)
class Attempt:
    """What one delivery attempt met: the receiver's status, or the error that stopped it."""

    started_at: datetime
    duration_ms: int
    status: int | None  # None: no answer
    error: str | None  # a sentence; None when the receiver took it
    response: bytes = b""  # at most max_response_bytes of the answer

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class Sender:
    """Attempts made side by side (a batch's webhooks), sharing connections: one client per
    target host, so a kept-alive connection, and its TLS session checked for that host, only
    ever carries that host's webhooks. Use ``async with``."""

    def __init__(
        self,
        *,
        timeout: float = 10.0,
        max_response_bytes: int = 64 * 1024,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.tls = tls
        self._clients: dict[tuple[str, str, int], httpx2.AsyncClient] = {}

    async def __aenter__(self) -> Sender:
        return self

    async def __aexit__(self, *_: object) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    def _client(self, target: Target) -> httpx2.AsyncClient:
        key = (target.scheme, target.host, target.port)
        if key not in self._clients:
            # No proxies from the environment: the connection must go to the checked address.
            # The client's own timeouts are the attempt's, which bounds the whole attempt
            # besides.
            self._clients[key] = httpx2.AsyncClient(
                follow_redirects=False,
                trust_env=False,
                verify=self.tls or _system_trust(),
                timeout=self.timeout,
            )
        return self._clients[key]

    async def deliver(self, target: Target, body: bytes, headers: Mapping[str, str]) -> Attempt:
        """POST ``body`` (JSON) with ``headers`` (the signature's) to ``target``; the outcome,
        whatever the receiver does."""
        started_at = datetime.now(UTC)
        start = time.perf_counter()

        def attempt(status: int | None, error: str | None, response: bytes = b"") -> Attempt:
            duration_ms = round((time.perf_counter() - start) * 1000)
            return Attempt(started_at, duration_ms, status, error, response)

        sent = {
            **headers,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Host": target.host_header,
        }
        timeout = self.timeout
        try:
            async with asyncio.timeout(timeout):
                status, response, location = await _post(
                    self._client(target), target, body, sent, self.max_response_bytes
                )
        except (TimeoutError, httpx2.TimeoutException):
            return attempt(None, f"The receiver did not answer within {timeout:g} s.")
        except httpx2.HTTPError as exc:
            return attempt(None, f"The request to {target.host} failed: {_reason(exc)}.")
        if 300 <= status < 400:
            # The Location is the receiver's to write: recorded, but not at any length.
            where = f" to {location[:200]}" if location else ""
            return attempt(status, f"The receiver redirected{where}; redirects are not followed.")
        if not 200 <= status < 300:
            return attempt(status, f"The receiver answered {status}.", response)
        return attempt(status, None, response)


async def deliver(
    target: Target,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float = 10.0,
    max_response_bytes: int = 64 * 1024,
    tls: ssl.SSLContext | None = None,
) -> Attempt:
    """One attempt on a connection of its own (``Sender.deliver``). ``tls`` is whom to trust
    over HTTPS (default: the system's certificate authorities)."""
    async with Sender(timeout=timeout, max_response_bytes=max_response_bytes, tls=tls) as sender:
        return await sender.deliver(target, body, headers)


@functools.cache
def _system_trust() -> ssl.SSLContext:
    """Whom httpx trusts by default, read once: a client made with ``verify=True`` reads the
    certificate authorities again each time (milliseconds of CPU per webhook)."""
    return httpx2.create_ssl_context()


async def _post(
    client: httpx2.AsyncClient,
    target: Target,
    body: bytes,
    headers: Mapping[str, str],
    max_response_bytes: int,
) -> tuple[int, bytes, str | None]:
    """The status, the start of the answer and any Location; the next checked address is
    tried when one refuses the connection."""
    for index, address in enumerate(target.addresses):
        try:
            async with client.stream(
                "POST",
                target.url_for(address),
                content=body,
                headers=headers,
                # TLS names the URL's host, and the certificate is checked against it.
                extensions={"sni_hostname": target.host},
            ) as response:
                return (
                    response.status_code,
                    await _read_at_most(response, max_response_bytes),
                    response.headers.get("location"),
                )
        except httpx2.ConnectError:
            if index == len(target.addresses) - 1:
                raise
    raise AssertionError("a Target has at least one address")


async def _read_at_most(response: httpx2.Response, limit: int) -> bytes:
    # Raw bytes: a compressed answer is never inflated, so a small one cannot grow large.
    read = bytearray()
    async for chunk in response.aiter_raw():
        read += chunk[: limit - len(read)]
        if len(read) >= limit:
            break
    return bytes(read)


def _reason(exc: httpx2.HTTPError) -> str:
    return str(exc) or type(exc).__name__
