"""The job worker ``threadwise serve`` runs beside itself: ``threadwise worker`` started at a
lower CPU priority, started again if it stops, stopped (gracefully) with the server.

A worker left without its server (the server killed) notices within a second and stops as on
SIGTERM; killing a replica's whole process group (its session) kills both at once.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

log = logging.getLogger(__name__)

# A worker that stopped on its own is started again after this pause.
RESTART_SECONDS = 5.0
# Past the grace, how long a stopping worker has to exit before it is killed.
KILL_MARGIN_SECONDS = 10.0
_MAIN = "from threadwise.cli import main; raise SystemExit(main())"


def worker_command(nice: int) -> list[str]:
    """How to start ``threadwise worker`` with this interpreter, at ``nice``."""
    script = Path(sys.executable).with_name("threadwise")  # the package's own, beside it
    start = [str(script)] if script.exists() else [sys.executable, "-c", _MAIN]
    return [*start, "worker", "--nice", str(nice), "--parent", str(os.getpid())]


class WorkerProcess:
    """``command`` run with ``environment`` until ``stop``; started again when it ends."""

    def __init__(
        self, command: list[str], environment: dict[str, str], *, grace_seconds: float
    ) -> None:
        self.command = command
        self.environment = environment
        self.grace_seconds = grace_seconds
        self.starts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._keeper = threading.Thread(target=self._keep, name="job worker", daemon=True)

    def start(self) -> None:
        self._keeper.start()

    def _keep(self) -> None:
        while True:
            with self._lock:
                if self._stopping.is_set():
                    return
                self.starts += 1
                self._process = subprocess.Popen(self.command, env=self.environment)
            code = self._process.wait()
            if self._stopping.is_set():
                return
            log.warning(
                "the job worker stopped (exit status %s); starting it again in %g s",
                code,
                RESTART_SECONDS,
            )
            if self._stopping.wait(RESTART_SECONDS):
                return

    def ask_to_stop(self) -> None:
        """SIGTERM to the worker now (the server's drain begins): it stops taking jobs, and
        its running ones end their part meanwhile. ``stop`` waits for it."""
        with self._lock:
            self._stopping.set()
            if self._process is not None and self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)

    async def on_drain(self, grace_seconds: float) -> None:
        """The server's drain began (a ``Lifecycle`` shutdown hook): ``ask_to_stop``."""
        self.ask_to_stop()

    def stop(self) -> int | None:
        """SIGTERM to the worker, and its exit status once it has ended (its running jobs
        end their part within ``grace_seconds``); killed if it takes longer."""
        self.ask_to_stop()
        process = self._process
        if process is None:
            return None
        try:
            code = process.wait(self.grace_seconds + KILL_MARGIN_SECONDS)
        except subprocess.TimeoutExpired:
            log.error("the job worker did not stop in time; killed")
            process.kill()
            code = process.wait()
        self._keeper.join(10)
        return code
