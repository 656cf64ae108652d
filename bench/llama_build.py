"""Tokens per second of the default model under llama.cpp CPU builds, side by side in one run.

    python -m bench.llama_build [--repeat N] [NAME=LIB_DIR ...]

Each NAME=LIB_DIR is a directory holding a ``libggml-cpu.so`` built another way (for example
ggml's ``-march=native`` build without AMX, or another ``cpu_levels`` rung); the installed
library is always measured first, as the baseline. Every build runs in its own child process
(a build with instructions this CPU lacks dies there, and is reported), with the installed
llama-cpp-python package copied beside it and only its ``libggml-cpu.so`` swapped, so that
nothing but the CPU backend differs. Prints prompt and generation tokens/s (best of
``--repeat``) and their ratios to the baseline. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from threadwise.config import Settings
from threadwise.engines.model_files import DEFAULT_MODEL
from threadwise.engines.native_build import library_dir

_PROMPT = "Summarize this support chat in two sentences.\n" + "\n".join(
    f"Customer: my order {n} has not arrived and the tracking page shows no update. "
    f"Agent: I am sorry, let me check order {n} with the carrier for you."
    for n in range(12)
)
_GENERATE = 64


def measure(model: Path, repeat: int) -> dict[str, float]:
    """Best prompt and generation tokens/s over ``repeat`` runs, in this process."""
    from llama_cpp import Llama

    llm = Llama(model_path=str(model), n_ctx=1024, n_threads=2, n_threads_batch=2, verbose=False)
    tokens = llm.tokenize(_PROMPT.encode(), add_bos=True)
    prompt_rates, generation_rates = [], []
    for _ in range(repeat):
        llm.reset()  # type: ignore[no-untyped-call]
        started = time.perf_counter()
        llm.eval(tokens)
        prompt_rates.append(len(tokens) / (time.perf_counter() - started))
        # Decoding one token costs the same whichever token it is: fixed ones, so that no
        # sampler's time is counted.
        started = time.perf_counter()
        for token in tokens[:_GENERATE]:
            llm.eval([token])
        generation_rates.append(_GENERATE / (time.perf_counter() - started))
    return {
        "prompt_tokens": len(tokens),
        "prompt": max(prompt_rates),
        "generation": max(generation_rates),
    }


def _package_with(cpu_library: Path, into: Path) -> Path:
    """A copy of the installed llama_cpp package whose CPU backend is ``cpu_library``."""
    installed = library_dir()
    assert installed is not None, "llama-cpp-python is not installed"
    package = into / "llama_cpp"
    shutil.copytree(installed.parent, package, symlinks=True)
    # The wheel holds the library under each of its names as copies, and the loader asks for
    # the versioned one (its SONAME): every copy is replaced.
    for target in (package / "lib").glob("libggml-cpu.so*"):
        target.unlink()
        shutil.copy2(cpu_library, target)
    return into


def _run(name: str, path_entry: Path | None, model: Path, repeat: int) -> dict[str, object]:
    env = dict(os.environ)
    if path_entry is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path_entry), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "bench.llama_build", "--child", str(model), str(repeat)],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or [""])[-1]
        return {"name": name, "error": f"exit {done.returncode}: {tail}"}
    return {"name": name, **json.loads(done.stdout.splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("builds", nargs="*", metavar="NAME=LIB_DIR")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child[0]), int(args.child[1]))))
        return
    model = Settings().model_dir / DEFAULT_MODEL.filename
    rows = [_run("installed", None, model, args.repeat)]
    with tempfile.TemporaryDirectory() as scratch:
        for n, build in enumerate(args.builds):
            name, _, directory = build.partition("=")
            entry = _package_with(Path(directory) / "libggml-cpu.so", Path(scratch) / str(n))
            rows.append(_run(name, entry, model, args.repeat))
    base = rows[0]
    print(f"{'build':<24} {'prompt tok/s':>12} {'ratio':>6} {'gen tok/s':>10} {'ratio':>6}")
    for row in rows:
        if "error" in row:
            print(f"{row['name']:<24} {row['error']}")
            continue
        prompt, generation = float(row["prompt"]), float(row["generation"])  # type: ignore[arg-type]
        prompt_ratio = prompt / float(base.get("prompt", prompt))  # type: ignore[arg-type]
        generation_ratio = generation / float(base.get("generation", generation))  # type: ignore[arg-type]
        print(
            f"{row['name']:<24} {prompt:>12.1f} {prompt_ratio:>6.2f} "
            f"{generation:>10.1f} {generation_ratio:>6.2f}"
        )


if __name__ == "__main__":
    main()
