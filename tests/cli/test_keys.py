"""`threadwise keys rotate`: a new locally generated signing key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import run
from threadwise.config import Settings


def test_keys_rotate(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from threadwise.auth.keys import load_key_ring

    settings = Settings(data_dir=data_dir)
    before = load_key_ring(settings).current.kid
    code, out, _ = run(capsys, "keys", "rotate")
    assert code == 0
    after = load_key_ring(settings)
    assert after.current.kid != before and after.current.kid in out
    assert after.find(before) is not None


def test_keys_rotate_refuses_a_configured_secret(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADWISE_JWT_SECRET", "a configured secret that is long enough!")
    code, _, err = run(capsys, "keys", "rotate")
    assert code == 2 and "THREADWISE_JWT_RETIRED_KEYS" in err
