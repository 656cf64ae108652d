"""The keys tokens are signed and checked with, each named by a key id (``kid``).

One key signs; retired keys still verify the tokens they signed until those expire, so keys
can rotate without cutting anyone off. HS256 secrets come from the settings, or, outside
production, from a file generated in the data directory; RS256 keys from PEM files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey
from jwt.algorithms import RSAAlgorithm

from threadwise.config import ConfigurationError, RetiredKey, Settings

KEY_FILE_NAME = "jwt-keys.json"
MIN_SECRET_BYTES = 32


@dataclass(frozen=True)
class Key:
    kid: str
    algorithm: str  # "HS256" or "RS256"; a key verifies only tokens of its own algorithm
    signing: Any  # the HMAC secret, or the RSA private key
    verifying: Any  # the HMAC secret, or the RSA public key
    retired_at: datetime | None = None


class KeyRing:
    """The signing key and every key that verifies."""

    def __init__(self, current: Key, retired: list[Key]) -> None:
        self.current = current
        self._by_kid = {key.kid: key for key in [*retired, current]}

    def find(self, kid: str) -> Key | None:
        return self._by_kid.get(kid)


def load_key_ring(settings: Settings) -> KeyRing:
    retired = [_retired_key(key, settings.jwt_algorithm) for key in settings.jwt_retired_keys]
    if settings.jwt_algorithm == "RS256":
        if settings.jwt_private_key_file is None:
            raise ConfigurationError(
                "THREADWISE_JWT_ALGORITHM=RS256 needs THREADWISE_JWT_PRIVATE_KEY_FILE, a PEM "
                "RSA private key (e.g. `openssl genrsa -out key.pem 3072`)."
            )
        current = rsa_key(settings.jwt_private_key_file, settings.jwt_key_id)
    elif settings.jwt_secret is not None:
        current = hmac_key(settings.jwt_secret.get_secret_value(), settings.jwt_key_id)
    elif settings.production:
        raise ConfigurationError(
            "Production mode needs the token-signing secret from the environment: set "
            "THREADWISE_JWT_SECRET to at least 32 random bytes (e.g. `openssl rand -hex 32`), "
            "the same on every replica."
        )
    else:
        key_file = LocalKeyFile(settings.data_dir / KEY_FILE_NAME, settings.access_token_seconds)
        current, file_retired = key_file.load()
        retired += file_retired
    return KeyRing(current, retired)


def hmac_key(secret: str, kid: str | None = None, retired_at: datetime | None = None) -> Key:
    raw = secret.encode()
    if len(raw) < MIN_SECRET_BYTES:
        raise ConfigurationError(
            f"An HS256 token secret must be at least {MIN_SECRET_BYTES} bytes, got {len(raw)}; "
            "generate one with `openssl rand -hex 32`."
        )
    # A digest names the key without revealing anything usable about it.
    kid = kid or "hs-" + hashlib.sha256(raw).hexdigest()[:16]
    return Key(kid, "HS256", raw, raw, retired_at)


def rsa_key(private_key_file: Path, kid: str | None = None) -> Key:
    private = serialization.load_pem_private_key(private_key_file.read_bytes(), password=None)
    if not isinstance(private, RSAPrivateKey):
        raise ConfigurationError(f"{private_key_file} is not an RSA private key (RS256 needs one).")
    public = private.public_key()
    return Key(kid or rsa_thumbprint(public), "RS256", private, public)


def rsa_public_key(public_key_file: Path, kid: str, retired_at: datetime | None) -> Key:
    public = serialization.load_pem_public_key(public_key_file.read_bytes())
    if not isinstance(public, RSAPublicKey):
        raise ConfigurationError(f"{public_key_file} is not an RSA public key.")
    return Key(kid, "RS256", None, public, retired_at)


def rsa_thumbprint(public: RSAPublicKey) -> str:
    """The RFC 7638 thumbprint of the key: its usual key id."""
    jwk = RSAAlgorithm.to_jwk(public, as_dict=True)
    canonical = json.dumps({k: jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _retired_key(key: RetiredKey, algorithm: str) -> Key:
    retired_at = _aware(key.retired_at)
    if key.public_key_file is not None:
        return rsa_public_key(key.public_key_file, key.kid, retired_at)
    if key.secret is not None:
        return hmac_key(key.secret.get_secret_value(), key.kid, retired_at)
    raise ConfigurationError(
        f"Retired key {key.kid!r} has neither 'secret' (HS256) nor 'public_key_file' "
        f"(RS256); the current algorithm is {algorithm}."
    )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class LocalKeyFile:
    """A generated HS256 key (and the keys it replaced) in a file only its owner can read.

    For local use: several replicas must share THREADWISE_JWT_SECRET instead.
    """

    def __init__(self, path: Path, token_seconds: int) -> None:
        self.path = path
        self.token_seconds = token_seconds

    def load(self) -> tuple[Key, list[Key]]:
        if not self.path.exists():
            self._write({"current": _new_entry(), "retired": []}, replace=False)
        data = json.loads(self.path.read_text())
        current = hmac_key(data["current"]["secret"], data["current"]["kid"])
        retired = [
            hmac_key(entry["secret"], entry["kid"], datetime.fromisoformat(entry["retired_at"]))
            for entry in data["retired"]
        ]
        return current, retired

    def rotate(self, now: datetime | None = None) -> str:
        """Start signing with a new key; the old one verifies until its tokens expire."""
        now = now or datetime.now(UTC)
        self.load()
        data = json.loads(self.path.read_text())
        grace = timedelta(seconds=self.token_seconds)
        retired = [
            entry
            for entry in data["retired"]
            if datetime.fromisoformat(entry["retired_at"]) + grace > now
        ]
        retired.append({**data["current"], "retired_at": now.isoformat()})
        new = _new_entry()
        self._write({"current": new, "retired": retired})
        kid: str = new["kid"]
        return kid

    def _write(self, data: dict[str, Any], *, replace: bool = True) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(data, out, indent=2)
        if replace:
            partial.replace(self.path)
            return
        # Two processes starting at once must not each generate a key: the first one wins.
        try:
            os.link(partial, self.path)
        except FileExistsError:
            pass
        finally:
            partial.unlink()


def _new_entry() -> dict[str, str]:
    secret = secrets.token_hex(32)
    return {"kid": hmac_key(secret).kid, "secret": secret}
