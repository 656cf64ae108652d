"""Load a GGUF model and decode one token, in a child process: a crash there is a sentence.

A native library that meets an instruction the CPU cannot run dies of SIGILL, and takes its
process with it; run in a child, the parent reads the signal and says what it means.
``python -m threadwise.engines.llama_probe MODEL THREADS`` prints the decoded token's text.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from threadwise.engines.native_build import check_cpu

# Loading the 1.5B model takes 1 s warm and 9 s cold here; a busy machine, several times that.
PROBE_SECONDS = 180.0


@dataclass(frozen=True)
class ProbeResult:
    passed: bool
    detail: str


def decode_one_token(model_path: Path, threads: int) -> str:
    """The model's first token after a short prompt (greedy)."""
    check_cpu()
    from llama_cpp import Llama

    llm = Llama(model_path=str(model_path), n_ctx=256, n_threads=threads, n_batch=64, verbose=False)
    llm.eval(llm.tokenize(b"The capital of France is", add_bos=True))
    token = llm.sample(temp=0.0)
    return llm.detokenize([token]).decode("utf-8", errors="replace")


def probe(model_path: Path, threads: int, timeout: float = PROBE_SECONDS) -> ProbeResult:
    """Run ``decode_one_token`` in a child process and read how it ended."""
    return run_probe([sys.executable, "-m", __name__, str(model_path), str(threads)], timeout)


def run_probe(command: list[str], timeout: float) -> ProbeResult:
    """Run ``command``; its printed token on success, else what its end means."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ProbeResult(False, f"no token within {timeout:.0f} s (is the machine overloaded?)")
    if done.returncode == 0:
        return ProbeResult(True, f"decoded {done.stdout.strip()!r}")
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        meaning = _SIGNALS.get(name, "the native library crashed")
        return ProbeResult(False, f"the child process died of {name}: {meaning}")
    last_line = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
    return ProbeResult(False, f"exit {done.returncode}: {last_line}")


_SIGNALS = {
    "SIGILL": "the llama.cpp library uses an instruction this CPU cannot run",
    "SIGKILL": "killed, most likely for want of memory",
    "SIGSEGV": "the library crashed (a broken build, or a damaged model file)",
    "SIGBUS": "the model file changed or its disk failed while it was read",
}


def main(argv: list[str]) -> int:
    print(decode_one_token(Path(argv[0]), int(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
