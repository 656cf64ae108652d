"""What the benchmarks share: their support chats, a percentile, and loaded services."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from threadwise.config import Settings
from threadwise.services import Services, build_services

DATA = Path(__file__).parent / "data"


def support_chats() -> list[dict[str, Any]]:
    """``bench/data/support_chats.jsonl``: id, request body, checklist, key facts."""
    return [json.loads(line) for line in (DATA / "support_chats.jsonl").read_text().splitlines()]


def support_chat_bodies() -> list[dict[str, Any]]:
    return [chat["body"] for chat in support_chats()]


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile; NaN when there are no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@contextmanager
def loaded_services(**settings: Any) -> Iterator[Services]:
    """Services with the real engines loaded, in a data directory of their own, the result
    cache off; ``settings`` as ``Settings`` takes them."""
    with tempfile.TemporaryDirectory() as data_dir:
        services = build_services(
            Settings(data_dir=Path(data_dir), result_cache_ttl_seconds=0, **settings)
        )
        services.start()
        loaded = services.wait_loaded(300)
        if services.load_error is not None:
            raise services.load_error
        assert loaded, "the engines did not load in 300 s"
        try:
            yield services
        finally:
            services.close()


def cpu_by_program() -> dict[str, float]:
    """CPU seconds (user + system) used so far by every running process on this machine,
    summed by program name (``/proc/*/stat``; this process is ``benchmark``, a llama.cpp
    server ``model server``); the difference of two readings is what each
    program used between them (of the processes alive at both)."""
    ticks = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue  # ended meanwhile
        name = text[text.index("(") + 1 : text.rindex(")")]
        if stat.parent.name == str(os.getpid()):
            name = "benchmark"
        elif b"llama" in command:
            name = "model server"
        elif name == "threadwise":  # its server and its job worker apart
            words = command.decode(errors="replace").split("\0")  # python, script, command
            name = f"threadwise {words[2]}" if len(words) > 2 else name
        fields = text[text.rindex(")") + 2 :].split()
        used[name] = used.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return used


def cpu_used(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU seconds per program between two ``cpu_by_program`` readings, most first."""
    spent = {name: after[name] - before.get(name, 0.0) for name in after}
    return dict(sorted(((n, s) for n, s in spent.items() if s > 0.005), key=lambda x: -x[1]))
