"""Where a webhook may go: a URL checked against server-side request forgery.

A receiver's URL is the customer's to choose, so it could name the service's own network:
loopback, private and link-local ranges, or the cloud's metadata service. ``resolve_target``
resolves the host once and refuses it if ANY of its addresses is such a one; the ``Target``
keeps the addresses it checked, and the delivery connects to one of them, so a DNS answer
that changes between the check and the connection (DNS rebinding) reaches nothing new.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_DEFAULT_PORTS = {"http": 80, "https": 443}
# AWS and GCP and Azure (169.254.169.254), AWS over IPv6, Alibaba Cloud.
_METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # IPv4 addresses written as IPv6 (RFC 6052)
_ALLOWING = "unless the operator allows its host"


class TargetError(ValueError):
    """A webhook URL that will not be called, and why."""


class UnsafeTarget(TargetError):
    """The URL is malformed or names an address the service must not call."""


class UnresolvedTarget(TargetError):
    """The host does not resolve now (it may later: a delivery can retry)."""


@dataclass(frozen=True)
class Target:
    """A checked URL and the addresses its host resolved to; connect only to these."""

    url: str
    scheme: str
    host: str  # ASCII (IDNA), without brackets
    port: int
    path: str  # with the query; "/" at least
    addresses: tuple[str, ...]

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    def url_for(self, address: str) -> str:
        """The URL with ``address`` (one of ``addresses``) in place of the host."""
        host = f"[{address}]" if ":" in address else address
        return f"{self.scheme}://{host}:{self.port}{self.path}"


async def resolve_target(url: str, allowed_hosts: Collection[str] = ()) -> Target:
    """``url`` checked and resolved, or ``TargetError`` saying why it will not be called.

    ``allowed_hosts`` (``"host"`` or ``"host:port"``, an operator's setting) are called
    whatever they resolve to: a receiver on the operator's own network, or a test's.
    """
    scheme, host, port, path = _parts(url)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnresolvedTarget(f"The webhook host {host!r} does not resolve: {exc}.") from exc
    # Zone ids ("fe80::1%eth0") are cut: the address is what the checks read.
    addresses = tuple(dict.fromkeys(str(info[4][0]).split("%")[0] for info in found))
    if not addresses:
        raise UnresolvedTarget(f"The webhook host {host!r} resolves to no address.")
    if not _allowed(host, port, allowed_hosts):
        for address in addresses:
            kind = refusal(ipaddress.ip_address(address))
            if kind is not None:
                raise UnsafeTarget(
                    f"The webhook host {host!r} resolves to {address}, {kind}; webhooks go "
                    f"only to public addresses, {_ALLOWING}."
                )
    return Target(url, scheme, host, port, path, addresses)


def refusal(address: IPAddress) -> str | None:
    """What kind of address ``address`` is when a webhook must not go there; ``None`` if it
    is a public one."""
    if address in _METADATA:
        return "a cloud metadata address"
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        kind = refusal(embedded)
        return f"{kind} written as IPv6" if kind else None
    checks = (
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address in _SHARED, "a carrier-grade NAT address"),
        (address.is_multicast, "a multicast address"),
        (address.is_unspecified, "the unspecified address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private address"),
        # Documentation, benchmarking and the other special ranges.
        (not address.is_global, "a special-purpose address"),
    )
    return next((kind for refused, kind in checks if refused), None)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, 6to4, NAT64), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    value = int(address)
    # IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks); :: and ::1
    # are not, and are refused as themselves.
    if value >> 32 == 0 and value > 1:
        return ipaddress.IPv4Address(value)
    if address in _NAT64:
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    return None


def _parts(url: str) -> tuple[str, str, int, str]:
    """The scheme, ASCII host, port and path of ``url``, or ``UnsafeTarget``."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise UnsafeTarget(f"The webhook URL {url!r} is malformed: {exc}.") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise UnsafeTarget(
            f"A webhook URL must start with https:// or http://, got {scheme or 'none'!r}."
        )
    if "@" in parts.netloc:
        raise UnsafeTarget(
            "A webhook URL must not carry a user name or password (user:pass@); the "
            "receiver verifies the signature instead."
        )
    if not parts.hostname:
        raise UnsafeTarget(f"A webhook URL needs a host, got {url!r}.")
    try:
        host = parts.hostname.rstrip(".").encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise UnsafeTarget(f"The webhook host {parts.hostname!r} is not a valid name.") from exc
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return scheme, host, port or _DEFAULT_PORTS[scheme], path


def _allowed(host: str, port: int, allowed_hosts: Collection[str]) -> bool:
    bracketed = f"[{host}]" if ":" in host else host
    names = {host, bracketed, f"{bracketed}:{port}"}
    return any(entry.strip().lower().rstrip(".") in names for entry in allowed_hosts)
