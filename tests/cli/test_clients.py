"""`threadwise clients`: register, list, rotate and revoke the clients that may fetch tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import run
from threadwise.cli import main


def test_clients_lifecycle(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "clients", "create", "--org", "o1", "--org", "o2", "--json")
    assert code == 0
    created = json.loads(out)
    assert created["organizations"] == ["o1", "o2"]
    assert created["tenant"] == "default"
    client_id, secret = created["client_id"], created["client_secret"]

    code, out, _ = run(capsys, "clients", "list")
    assert code == 0
    assert client_id in out and "enabled" in out and "o1,o2" in out
    assert secret not in out

    code, out, _ = run(capsys, "clients", "rotate", client_id, "--json")
    rotated = json.loads(out)
    assert rotated["client_id"] == client_id
    assert rotated["client_secret"] not in (secret, "")

    assert run(capsys, "clients", "revoke", client_id)[0] == 0
    code, out, _ = run(capsys, "clients", "list", "--json")
    listed: list[dict[str, Any]] = json.loads(out)
    assert [(c["client_id"], c["enabled"]) for c in listed] == [(client_id, False)]
    assert "client_secret" not in listed[0]
    assert (data_dir / "threadwise.db").is_file()


def test_create_in_words(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "clients", "create", "--org", "o1", "--tenant", "acme", "--name", "acme app"
    )
    assert code == 0
    assert "client_secret  tws_" in out
    assert "shown only now" in out
    code, out, _ = run(capsys, "clients", "list", "--tenant", "acme")
    assert "acme app" in out


def test_mistakes(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "clients", "create", "--org", "o1", "--tenant", "not a label")
    assert code == 2 and "tenant name" in err
    code, _, err = run(capsys, "clients", "revoke", "twc_000000000000000000000000")
    assert code == 1 and "no client" in err
    with pytest.raises(SystemExit):
        main(["clients", "create"])  # --org is required
    capsys.readouterr()
