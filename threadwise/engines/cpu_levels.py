"""Which x86-64 instruction level llama.cpp is built for, chosen from what the CPU can run.

ggml's own ``-march=native`` build compiles in every extension the build host advertises,
AMX included; AMX tile instructions fault (SIGILL) where the kernel or hypervisor has not
granted the tile state, and a library built on one machine then dies on another. So the
build names its instruction sets explicitly, from this ladder (ggml's own variant names),
never AMX, and records the level beside the library so that a process checks, before it
loads the model, that its CPU has every extension the library was built with.

Standard library only: ``scripts/setup.sh`` runs this file before any dependency is installed
(``python3 threadwise/engines/cpu_levels.py`` prints the level's name and CMake arguments).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
# Written by scripts/setup.sh into the virtual environment that holds the library.
BUILD_RECORD_NAME = "threadwise-llama-build.json"
# Names the level to build instead of this CPU's best (a build variable, not a setting).
LEVEL_VARIABLE = "THREADWISE_CPU_LEVEL"


@dataclass(frozen=True)
class CpuLevel:
    """One rung: the CPU flags it needs (as /proc/cpuinfo spells them) and ggml's options."""

    name: str
    cpu_flags: frozenset[str]
    ggml_options: tuple[str, ...]


# Every x86 extension ggml has a CMake option for: each is named on or off in a build.
_X86_OPTIONS = [
    "SSE42",
    "AVX",
    "F16C",
    "FMA",
    "AVX2",
    "BMI2",
    "AVX_VNNI",
    "AVX512",
    "AVX512_VBMI",
    "AVX512_VNNI",
    "AVX512_BF16",
    "AMX_TILE",
    "AMX_INT8",
    "AMX_BF16",
]


def _rungs(*steps: tuple[str, str, str]) -> tuple[CpuLevel, ...]:
    """Levels from (name, the CPU flags it adds, the ggml options it adds), each rung
    needing all that the rungs below it need."""
    levels = [CpuLevel("x64", frozenset(), ())]
    for name, flags, options in steps:
        below = levels[-1]
        levels.append(
            CpuLevel(
                name,
                below.cpu_flags | set(flags.split()),
                below.ggml_options + tuple(options.split()),
            )
        )
    return tuple(levels)


# Lowest first, named as ggml names its CPU variants. AMX is on no rung: see the docstring.
LEVELS: tuple[CpuLevel, ...] = _rungs(
    ("sse42", "sse4_2", "SSE42"),
    ("haswell", "avx f16c fma avx2 bmi2", "AVX F16C FMA AVX2 BMI2"),
    ("skylakex", "avx512f avx512cd avx512vl avx512dq avx512bw", "AVX512"),
    ("icelake", "avx512vbmi avx512_vnni", "AVX512_VBMI AVX512_VNNI"),
    ("zen4", "avx512_bf16", "AVX512_BF16"),
)


def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The running CPU's feature flags (empty where /proc/cpuinfo is not readable)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def level_named(name: str) -> CpuLevel:
    """The rung called ``name``."""
    for level in LEVELS:
        if level.name == name:
            return level
    known = ", ".join(level.name for level in LEVELS)
    raise ValueError(f"unknown CPU level {name!r}; expected one of {known}")


def best_level(flags: frozenset[str]) -> CpuLevel:
    """The highest rung whose every flag the CPU has."""
    return [level for level in LEVELS if level.cpu_flags <= flags][-1]


def cmake_args(level: CpuLevel) -> list[str]:
    """ggml's CMake options for ``level``: no ``-march=native``, every extension named."""
    args = ["-DGGML_NATIVE=OFF"]
    args += [
        f"-DGGML_{option}={'ON' if option in level.ggml_options else 'OFF'}"
        for option in _X86_OPTIONS
    ]
    return args


def missing_flags(level: CpuLevel, flags: frozenset[str]) -> frozenset[str]:
    """The extensions ``level`` uses that a CPU with ``flags`` lacks."""
    return level.cpu_flags - flags


def recorded_level(prefix: Path | None = None) -> CpuLevel | None:
    """The level setup recorded for the installed library (None: not built by setup)."""
    record = Path(prefix or sys.prefix) / BUILD_RECORD_NAME
    try:
        return level_named(json.loads(record.read_text(encoding="utf-8"))["level"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def main(argv: list[str]) -> int:
    """``cpu_levels.py [LEVEL]``: print the level's name, then its CMake arguments (the level
    named, else ``THREADWISE_CPU_LEVEL``'s, else the best this CPU runs)."""
    named = argv[0] if argv else os.environ.get(LEVEL_VARIABLE)
    level = level_named(named) if named else best_level(cpu_flags())
    print(level.name)
    print(" ".join(cmake_args(level)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
