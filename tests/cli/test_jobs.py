"""`threadwise jobs`: a running server's jobs, so --url is needed (with it, the client's
command runs: tests/client/test_command.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import run


def test_jobs_need_a_server(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["jobs", "list"], ["jobs", "show", "job_1"], ["jobs", "cancel", "job_1"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert "give --url URL" in err
