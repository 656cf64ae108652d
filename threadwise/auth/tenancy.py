"""Tenants: which one a Host names (`docs/protocol/interface.md` §2), and which names a
tenant may have."""

from __future__ import annotations

import re

DEFAULT_TENANT = "default"
# The WebSocket host of tenant acme is ws-acme.<base domain>.
WEBSOCKET_PREFIX = "ws-"
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def tenant_name(name: str) -> str:
    """``name`` as a tenant name (lower case), or ``ValueError`` saying why it cannot be one."""
    normalized = name.strip().lower()
    if not _LABEL.fullmatch(normalized):
        raise ValueError(
            f"A tenant name must be a DNS label (letters, digits and inner hyphens, at most "
            f"63 characters), got {name!r}."
        )
    if normalized.startswith(WEBSOCKET_PREFIX):
        raise ValueError(
            f"A tenant name must not start with {WEBSOCKET_PREFIX!r}: {WEBSOCKET_PREFIX}acme "
            f"is the WebSocket host of tenant acme. Got {name!r}."
        )
    return normalized


def tenant_of(host: str | None, base_domain: str | None) -> str | None:
    """The tenant a Host header names; ``None`` when it names none.

    Without a base domain there is one tenant, ``default``, whatever the host.
    """
    if not base_domain:
        return DEFAULT_TENANT
    if not host or host.startswith("["):  # no Host, or an IPv6 literal
        return None
    name = host.rsplit(":", 1)[0].lower().rstrip(".")
    suffix = "." + base_domain.lower().strip(".")
    if not name.endswith(suffix):
        return None
    label = name.removesuffix(suffix).split(".")[0].removeprefix(WEBSOCKET_PREFIX)
    return label if _LABEL.fullmatch(label) else None
