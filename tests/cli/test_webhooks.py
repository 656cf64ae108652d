"""`threadwise webhooks secret`: create (shown on the last line), rotate (both sign for a day),
show; refusals say what to do."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from standardwebhooks import Webhook

from tests.cli.conftest import run
from threadwise.webhooks.signing import signed_headers


def test_create_rotate_show(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0  # the default tenant

    code, out, _ = run(capsys, "webhooks", "secret", "create", "o1")
    assert code == 0
    first = out.splitlines()[-1]  # alone on the last line, for scripts
    assert first.startswith("whsec_")

    code, out, _ = run(capsys, "webhooks", "secret", "rotate", "o1", "--tenant", "default")
    assert code == 0 and "UTC" in out
    second = out.splitlines()[-1]
    assert second.startswith("whsec_") and second != first

    code, out, _ = run(capsys, "webhooks", "secret", "show", "o1")
    assert code == 0 and out.splitlines()[-1] == second
    assert first not in out  # the rotated-out secret is not shown again
    # What is shown is what signs: a receiver with it verifies.
    body = b'{"type":"job.completed"}'
    headers = signed_headers([second], "msg_1", datetime.now(UTC), body)
    Webhook(out.splitlines()[-1]).verify(body, headers)


def test_refusals_say_what_to_do(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "webhooks", "secret", "create", "o1", "--tenant", "nosuch")
    assert code == 2 and "clients create --tenant nosuch" in err
    run(capsys, "clients", "create", "--org", "o1")
    code, _, err = run(capsys, "webhooks", "secret", "show", "o1")
    assert code == 1 and "webhooks secret create o1" in err
    code, _, err = run(capsys, "webhooks", "secret", "rotate", "o1")
    assert code == 2 and "webhooks secret create o1" in err
    run(capsys, "webhooks", "secret", "create", "o1")
    code, _, err = run(capsys, "webhooks", "secret", "create", "o1")
    assert code == 2 and "webhooks secret rotate o1" in err
