"""`threadwise serve`: refused without what production needs; a new user's first run, end to
end."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import run
from threadwise.config import Settings
from threadwise.engines.model_files import DEFAULT_MODEL


def test_production_refuses_to_serve_without_a_secret(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADWISE_PRODUCTION", "true")
    code, _, err = run(capsys, "serve")
    assert code == 2 and "THREADWISE_JWT_SECRET" in err


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`threadwise serve` on a fresh data directory; yields what it printed before serving."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Generous: the machine may be busy; what is tested is the flow, not the model's speed.
    env = {
        **os.environ,
        "THREADWISE_DATA_DIR": str(tmp_path),
        "THREADWISE_REQUEST_TIMEOUT_SECONDS": "600",
    }
    model = Settings().model_dir / DEFAULT_MODEL.filename
    if model.is_file():
        env["THREADWISE_LLM_MODEL_PATH"] = str(model)
    server = subprocess.Popen(
        [sys.executable, "-m", "threadwise.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert server.stdout is not None
    printed: list[str] = []
    deadline = time.monotonic() + 120
    for line in server.stdout:
        printed.append(line)
        # uvicorn binds its socket after the application's start-up: this line comes last.
        if "Uvicorn running on" in line or time.monotonic() > deadline:
            break
    try:
        yield "".join(printed), server
    finally:
        server.terminate()
        server.communicate(timeout=30)


@pytest.mark.model
def test_the_printed_curl_gets_a_summary(served: tuple[str, subprocess.Popen[str]]) -> None:
    printed, _ = served
    assert "client_secret  tws_" in printed, printed
    commands = [line for line in printed.splitlines() if line.startswith(("TOKEN=", "curl "))]
    assert len(commands) == 2, printed
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + "\n".join(commands)],
        capture_output=True,
        text=True,
        timeout=660,
    )
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert envelope["state"] == "completed", envelope
    assert envelope["requestId"] == "r-42"  # the README's example request
    assert envelope["message"]["results"][0]["response"][0]["content"].strip()
    # Without the token, the same request is refused.
    without = subprocess.run(
        ["bash", "-c", commands[1].replace('-H "Authorization: Bearer $TOKEN" ', "")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(without.stdout)["error"]["code"] == "MISSING_TOKEN"
