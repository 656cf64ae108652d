"""What the tests of the `threadwise` command share: a data directory of their own, and a way
to run the command and see what it printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from threadwise.cli import main


@pytest.fixture(autouse=True)
def _isolated_logging(isolated_logging: None) -> None:
    """main() configures logging: undone after each test."""


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("THREADWISE_DATA_DIR", str(tmp_path))
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
