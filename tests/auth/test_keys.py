from __future__ import annotations

import json
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from pydantic import SecretStr

from threadwise.auth.keys import KEY_FILE_NAME, LocalKeyFile, load_key_ring
from threadwise.config import ConfigurationError, Settings

SECRET = "0123456789abcdef0123456789abcdef-a-secret"


def test_generated_on_first_run_and_kept(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    first = load_key_ring(settings)
    path = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert first.current.algorithm == "HS256"
    assert len(first.current.signing) >= 32
    again = load_key_ring(settings)
    assert again.current.kid == first.current.kid
    assert again.current.signing == first.current.signing


def test_local_rotation_keeps_the_old_key_for_its_tokens_lifetime(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, access_token_seconds=3600)
    old = load_key_ring(settings).current
    key_file = LocalKeyFile(tmp_path / KEY_FILE_NAME, 3600)
    new_kid = key_file.rotate()
    ring = load_key_ring(settings)
    assert ring.current.kid == new_kid != old.kid
    retired = ring.find(old.kid)
    assert retired is not None and retired.retired_at is not None
    assert retired.signing == old.signing
    # Rotating again more than a token lifetime later forgets the first key.
    key_file.rotate(now=datetime.now(UTC) + timedelta(hours=2))
    ring = load_key_ring(settings)
    assert ring.find(old.kid) is None
    assert ring.find(new_kid) is not None


def test_secret_from_the_settings(tmp_path: Path) -> None:
    ring = load_key_ring(Settings(data_dir=tmp_path, jwt_secret=SecretStr(SECRET)))
    assert ring.current.signing == SECRET.encode()
    assert ring.current.kid.startswith("hs-")
    assert SECRET not in ring.current.kid
    assert not (tmp_path / KEY_FILE_NAME).exists()
    named = load_key_ring(
        Settings(data_dir=tmp_path, jwt_secret=SecretStr(SECRET), jwt_key_id="2026-11")
    )
    assert named.current.kid == "2026-11"


def test_short_secret_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="at least 32 bytes"):
        load_key_ring(Settings(data_dir=tmp_path, jwt_secret=SecretStr("short")))


def test_production_needs_a_configured_secret(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="THREADWISE_JWT_SECRET"):
        load_key_ring(Settings(data_dir=tmp_path, production=True))
    assert not (tmp_path / KEY_FILE_NAME).exists()
    ring = load_key_ring(Settings(data_dir=tmp_path, production=True, jwt_secret=SECRET))
    assert ring.current.signing == SECRET.encode()


def test_retired_keys_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    retired = [{"kid": "k1", "secret": SECRET + "-old", "retired_at": "2026-11-01T00:00:00Z"}]
    monkeypatch.setenv("THREADWISE_JWT_SECRET", SECRET)
    monkeypatch.setenv("THREADWISE_JWT_RETIRED_KEYS", json.dumps(retired))
    ring = load_key_ring(Settings(data_dir=tmp_path))
    old = ring.find("k1")
    assert old is not None
    assert old.retired_at == datetime(2026, 11, 1, tzinfo=UTC)
    assert ring.current.kid != "k1"


def _pem(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def test_rs256_key_pair(tmp_path: Path) -> None:
    key_file = tmp_path / "key.pem"
    key_file.write_bytes(_pem(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    settings = Settings(data_dir=tmp_path, jwt_algorithm="RS256", jwt_private_key_file=key_file)
    ring = load_key_ring(settings)
    assert ring.current.algorithm == "RS256"
    assert ring.current.kid == load_key_ring(settings).current.kid  # a stable thumbprint
    with pytest.raises(ConfigurationError, match="PRIVATE_KEY_FILE"):
        load_key_ring(Settings(data_dir=tmp_path, jwt_algorithm="RS256"))
    key_file.write_bytes(_pem(ec.generate_private_key(ec.SECP256R1())))
    with pytest.raises(ConfigurationError, match="not an RSA private key"):
        load_key_ring(settings)
