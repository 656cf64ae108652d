"""One Apertium mode's programs as a warm, long-lived pipeline in null-flush mode (as
``apertium-apy`` runs them): a message ends with ``\\0``, and a marker message after it
pushes the last one through the programs that hold a token back. A watchdog restarts a
pipeline that hangs."""

from __future__ import annotations

import itertools
import logging
import os
import select
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from threadwise.engines.machine import TranslationEngineError

log = logging.getLogger(__name__)


# An exchange takes milliseconds (~200,000 characters a second on this machine): one that
# takes longer than this watchdog has hung, and the pipeline is restarted. The programs of a
# pipeline just started load their dictionaries first (0.1 s here).
WATCHDOG_SECONDS = 2.0
WATCHDOG_BYTES_PER_SECOND = 20_000
WATCHDOG_START_SECONDS = 5.0


class ApertiumPipeline:
    """One direction's programs, started once and kept running."""

    def __init__(
        self,
        mode_file: Path,
        timeout: float = WATCHDOG_SECONDS,
        commands: list[list[str]] | None = None,
    ) -> None:
        self.mode_file = mode_file
        self.name = mode_file.stem
        self.timeout = timeout
        # The mode's programs, or only some of them (its analyzer: see ``known_words``).
        self._commands = commands or parse_mode_file(mode_file)
        self._processes: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()  # one pass at a time
        self._queue_lock = threading.Lock()
        self._queue: list[_Waiting] = []  # callers whose texts no pass has taken yet
        self._markers = itertools.count()

    def start(self) -> None:
        with self._lock:
            if not self._alive():
                self._start()

    def _start(self) -> None:
        self._stop()
        previous: subprocess.Popen[bytes] | None = None
        for command in self._commands:
            process = subprocess.Popen(
                command,
                stdin=previous.stdout if previous else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            if previous is not None and previous.stdout is not None:
                previous.stdout.close()  # the next program holds it now
            self._processes.append(process)
            previous = process
        log.info("apertium pipeline %s started (%d programs)", self.name, len(self._commands))

    def _alive(self) -> bool:
        return bool(self._processes) and all(p.poll() is None for p in self._processes)

    def translate(self, texts: Sequence[str]) -> list[str]:
        """Translate stream-format texts, in one pass through the pipeline.

        Callers that arrive while a pass runs have their texts joined into the next pass
        (one exchange for several requests, as a database commits a group): a pass costs
        about the same for one short text as for a few. A pipeline that died is found so by
        its pass (a closed pipe), restarted and the pass tried once more; asking every
        program whether it still runs before each pass took a tenth of the fast tier's time.
        One that does not answer within the watchdog's time is restarted for the next
        caller, and the pass fails: the same texts would hang it again. A joined pass that
        fails so is tried again one caller at a time, so that only the texts that hang it
        fail."""
        waiting = _Waiting(list(texts))
        with self._queue_lock:
            self._queue.append(waiting)
        while waiting.result is None and waiting.error is None:
            with self._lock:
                if waiting.result is not None or waiting.error is not None:
                    break  # a pass that took it ended while this caller waited
                with self._queue_lock:
                    group, self._queue = self._queue, []
                self._pass_group(group)
        if waiting.error is not None:
            raise waiting.error
        assert waiting.result is not None
        return waiting.result

    def _pass_group(self, group: list[_Waiting]) -> None:
        """One pass for the texts of ``group`` (called holding the lock); a failed joined
        pass is tried again one caller at a time."""
        try:
            done = self._pass([t for w in group for t in w.texts])
        except TranslationEngineError as exc:
            if len(group) == 1:
                group[0].error = exc
                return
            for waiting in group:
                self._pass_group([waiting])
            return
        except BaseException as exc:
            # A fault of this code, not of the texts: the others hear of it too (never left
            # waiting), the caller whose thread ran the pass gets it as it is.
            for waiting in group:
                waiting.error = TranslationEngineError(f"Apertium pipeline {self.name}: {exc!r}")
            raise
        start = 0
        for waiting in group:
            waiting.result = done[start : start + len(waiting.texts)]
            start += len(waiting.texts)

    def _pass(self, texts: Sequence[str]) -> list[str]:
        payload = b"".join(t.encode("utf-8") + b"\0" for t in texts)
        timeout = self.timeout + len(payload) / WATCHDOG_BYTES_PER_SECOND
        for attempt in (1, 2):
            starting = 0.0
            if not self._processes:  # never started, or stopped after a failure
                self._start()
                starting = WATCHDOG_START_SECONDS
            try:
                return self._exchange(payload, len(texts), timeout + starting)
            except TimeoutError as exc:
                log.warning("apertium pipeline %s hung (%s); restarting it", self.name, exc)
                self._stop()
                raise TranslationEngineError(
                    f"Apertium pipeline {self.name} did not answer: {exc}"
                ) from exc
            except OSError as exc:
                log.warning("apertium pipeline %s failed (%s); restarting it", self.name, exc)
                self._stop()
                if attempt == 2:
                    raise TranslationEngineError(
                        f"Apertium pipeline {self.name} failed twice: {exc}"
                    ) from exc
        raise AssertionError("unreachable")

    def _exchange(self, texts: bytes, count: int, timeout: float) -> list[str]:
        marker = f"[/threadwise:{next(self._markers)}]".encode()
        payload = texts + marker + b"\0"
        stdin = self._processes[0].stdin
        stdout = self._processes[-1].stdout
        assert stdin is not None and stdout is not None
        # Write from another thread when the payload could fill the pipes before it is read.
        writer: threading.Thread | None = None
        if len(payload) > 16_384:
            writer = threading.Thread(target=_write_quietly, args=(stdin, payload), daemon=True)
            writer.start()
        else:
            _write(stdin, payload)
        ending = marker + b"\0"
        received = bytearray()
        deadline = time.monotonic() + timeout
        fd = stdout.fileno()
        while not received.endswith(ending):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer within {timeout:.1f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65_536)
                if not chunk:
                    raise OSError("the pipeline closed its output")
                received += chunk
        if writer is not None:
            writer.join()
        outputs = bytes(received[: -len(ending)]).split(b"\0")
        outputs = outputs[:count]
        if len(outputs) != count:
            raise OSError(f"{len(outputs)} answers for {count} texts")
        return [o.decode("utf-8", errors="replace") for o in outputs]

    def _stop(self) -> None:
        for process in self._processes:
            if process.poll() is None:
                process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
        self._processes = []

    def close(self) -> None:
        with self._lock:
            self._stop()


@dataclass
class _Waiting:
    """A caller's texts, and what their pass gave them."""

    texts: list[str]
    result: list[str] | None = None
    error: TranslationEngineError | None = None


def _write(stream: object, payload: bytes) -> None:
    assert hasattr(stream, "write") and hasattr(stream, "flush")
    stream.write(payload)
    stream.flush()


def _write_quietly(stream: object, payload: bytes) -> None:
    """``_write`` on a thread of its own: a pipeline that dies meanwhile is for the reader to
    report (it sees the output close), not for an exception nobody catches."""
    try:
        _write(stream, payload)
    except OSError as exc:
        log.debug("apertium pipeline input closed while writing: %s", exc)


def parse_mode_file(mode_file: Path) -> list[list[str]]:
    """The programs of a mode file, each told to flush at ``\\0`` (as APy runs them)."""
    commands = []
    for program in mode_file.read_text(encoding="utf-8").strip().split("|"):
        # $1 is the generator's mode: -n leaves unknown words unmarked. $2 is for debugging.
        args = shlex.split(program.replace("$1", "-n").replace("$2", ""))
        commands.append([args[0], "-z", *args[1:]])
    return commands
