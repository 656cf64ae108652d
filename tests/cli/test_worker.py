"""`threadwise worker` and the worker `threadwise serve` keeps beside itself: where the jobs run
for each database, refusals that say what to set, and a worker process started again when it
stops and stopped with its server. (Jobs run by a worker apart, end to end, in tests/cluster.)"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import run
from tests.conftest import eventually
from threadwise.cli import worker_process
from threadwise.cli.serve import jobs_worker
from threadwise.cli.worker_process import WorkerProcess, worker_command
from threadwise.config import ConfigurationError, Settings

POSTGRES = "postgresql://threadwise@127.0.0.1/threadwise"


def test_jobs_run_apart_with_postgresql_and_in_the_server_with_sqlite(tmp_path: Path) -> None:
    assert jobs_worker(Settings(data_dir=tmp_path)) == "inline"
    assert jobs_worker(Settings(data_dir=tmp_path, database_url=POSTGRES)) == "process"
    chosen = Settings(data_dir=tmp_path, database_url=POSTGRES, jobs_worker="inline")
    assert jobs_worker(chosen) == "inline"
    with pytest.raises(ConfigurationError, match="needs PostgreSQL"):
        jobs_worker(Settings(data_dir=tmp_path, jobs_worker="process"))


def test_a_worker_apart_refuses_sqlite_saying_what_to_set(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "worker")
    assert code == 2 and "THREADWISE_DATABASE_URL" in err


def test_the_worker_command_is_this_packages_at_the_niceness_asked() -> None:
    command = worker_command(10)
    assert command[-5:-2] == ["worker", "--nice", "10"] and command[-2] == "--parent"
    assert Path(command[0]).parent == Path(sys.executable).parent or command[0] == sys.executable


def child(starts: Path, on_sigterm: str, *, first_exits: bool = False) -> list[str]:
    """A stand-in worker: ``on_sigterm`` (``exit`` or ``ignore``) set, its start noted in
    ``starts`` (an ``x`` each), then waiting for signals (the first start ends at once with
    ``first_exits``)."""
    handler = "lambda *_: sys.exit(0)" if on_sigterm == "exit" else "signal.SIG_IGN"
    script = (
        "import pathlib, signal, sys\n"
        f"signal.signal(signal.SIGTERM, {handler})\n"
        f"p = pathlib.Path({str(starts)!r})\n"
        "p.write_text((p.read_text() if p.exists() else '') + 'x')\n"
        f"if {first_exits} and p.read_text() == 'x': sys.exit(3)\n"
        "while True: signal.pause()\n"
    )
    return [sys.executable, "-c", script]


def test_a_worker_that_stops_is_started_again_and_stops_with_the_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(worker_process, "RESTART_SECONDS", 0.05)
    starts = tmp_path / "starts"
    worker = WorkerProcess(child(starts, "exit", first_exits=True), {}, grace_seconds=5)
    worker.start()
    eventually(lambda: starts.exists() and starts.read_text() == "xx", 30, "not started again")
    assert worker.stop() == 0  # its SIGTERM handler ran: a graceful stop
    assert worker.starts == 2 and starts.read_text() == "xx"


def test_a_worker_deaf_to_sigterm_is_killed_past_its_grace(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(worker_process, "KILL_MARGIN_SECONDS", 0.5)
    starts = tmp_path / "starts"
    worker = WorkerProcess(child(starts, "ignore"), {}, grace_seconds=0)
    worker.start()
    eventually(starts.exists, 30, "the worker did not start")
    assert worker.stop() == -signal.SIGKILL
