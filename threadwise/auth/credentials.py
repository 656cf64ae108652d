"""Client ids and secrets: how they look, and how secrets are hashed and checked."""

from __future__ import annotations

import hashlib
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

CLIENT_ID_PREFIX = "twc_"
# The prefix lets secret scanners and the log filter recognize a leaked secret.
SECRET_PREFIX = "tws_"
_CLIENT_ID = re.compile(r"twc_[0-9a-f]{24}")
# An API key: its id (stored as is, to find it) and its secret (stored hashed), in one string.
API_KEY_PREFIX = "twk_"
_API_KEY = re.compile(r"twk_(?P<id>[0-9a-f]{16})_(?P<secret>[A-Za-z0-9_-]{43})")


def new_client_id() -> str:
    return CLIENT_ID_PREFIX + secrets.token_hex(12)


def new_client_secret() -> str:
    # 32 random bytes, base64url: safe in a query string, a form and HTTP Basic alike.
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def new_api_key() -> tuple[str, str]:
    """A new key's id and the key itself (which holds the id)."""
    key_id = secrets.token_hex(8)
    return key_id, f"{API_KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"


def api_key_id(key: str) -> str | None:
    """The id inside ``key``; ``None`` if it is not shaped like one of our API keys."""
    match = _API_KEY.fullmatch(key)
    return match.group("id") if match else None


def is_client_id(value: str) -> bool:
    """Whether ``value`` has the form of a client id (so it is safe to record)."""
    return _CLIENT_ID.fullmatch(value) is not None


def client_reference(client_id: str) -> str:
    """A short stand-in for what was sent as a client id, for logs and limiter keys: the
    same for the same id, never the id itself (nor a secret pasted in its place)."""
    digest = hashlib.sha256(client_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"client#{digest[:12]}"


class SecretHasher:
    """Argon2id hashes of client secrets (OWASP's minimum: 19 MiB, 2 passes).

    Checking a secret of an unknown client costs the same as a known one, so the time an
    answer takes does not tell which client ids exist.
    """

    def __init__(self, time_cost: int = 2, memory_kib: int = 19 * 1024) -> None:
        self._hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=1)
        self._decoy = self._hasher.hash(new_client_secret())

    def hash(self, secret: str) -> str:
        return self._hasher.hash(secret)

    def verify(self, stored_hash: str | None, secret: str) -> bool:
        try:
            return self._hasher.verify(stored_hash or self._decoy, secret) and bool(stored_hash)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored_hash: str) -> bool:
        return self._hasher.check_needs_rehash(stored_hash)
