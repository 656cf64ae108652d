"""`threadwise api-keys`: create a key for a client (shown once), list the keys, revoke one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import run
from threadwise.auth.credentials import api_key_id


def test_api_keys_lifecycle(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "clients", "create", "--org", "o1", "--json")
    client_id = json.loads(out)["client_id"]

    code, out, _ = run(capsys, "api-keys", "create", "--client", client_id, "--name", "mastodon")
    assert code == 0
    key = out.splitlines()[-1]  # alone on the last line, for scripts
    key_id = api_key_id(key)
    assert key_id is not None and key_id in out

    code, out, _ = run(capsys, "api-keys", "list")
    assert code == 0
    assert key_id in out and client_id in out and "active" in out and "mastodon" in out
    assert key not in out

    assert run(capsys, "api-keys", "revoke", key_id)[0] == 0
    code, out, _ = run(capsys, "api-keys", "list", "--client", client_id, "--json")
    listed: list[dict[str, Any]] = json.loads(out)
    assert [k["key_id"] for k in listed] == [key_id] and listed[0]["revoked_at"]
    assert key not in out


def test_api_keys_refusals_say_what_to_do(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "api-keys", "create", "--client", "twc_" + "0" * 24)
    assert code == 1 and "clients list" in err
    code, _, err = run(capsys, "api-keys", "revoke", "0123456789abcdef")
    assert code == 1 and "api-keys list" in err
    code, out, _ = run(capsys, "clients", "create", "--org", "o1", "--json")
    client_id = json.loads(out)["client_id"]
    run(capsys, "clients", "revoke", client_id)
    code, _, err = run(capsys, "api-keys", "create", "--client", client_id)
    assert code == 2 and "revoked" in err
