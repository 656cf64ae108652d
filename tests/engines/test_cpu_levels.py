"""The instruction levels llama.cpp is built for: chosen from the CPU, named, never AMX."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from threadwise.engines import cpu_levels
from threadwise.engines.cpu_levels import (
    BUILD_RECORD_NAME,
    LEVELS,
    best_level,
    cmake_args,
    cpu_flags,
    level_named,
    missing_flags,
    recorded_level,
)

# A Sapphire Rapids as this workplace's machines report it: AMX advertised.
SAPPHIRE_RAPIDS = frozenset(
    [
        "sse4_2",
        "avx",
        "f16c",
        "fma",
        "avx2",
        "bmi2",
        "avx512f",
        "avx512cd",
        "avx512vl",
        "avx512dq",
        "avx512bw",
        "avx512vbmi",
        "avx512_vnni",
        "avx512_bf16",
        "avx_vnni",
        "amx_tile",
        "amx_int8",
        "amx_bf16",
    ]
)


def test_the_highest_rung_the_cpu_has_is_chosen() -> None:
    assert best_level(SAPPHIRE_RAPIDS).name == "zen4"
    assert best_level(SAPPHIRE_RAPIDS - {"avx512_bf16"}).name == "icelake"
    assert best_level(frozenset({"sse4_2", "avx", "f16c", "fma", "avx2", "bmi2"})).name == "haswell"
    assert best_level(frozenset({"sse4_2", "avx"})).name == "sse42"
    assert best_level(frozenset()).name == "x64"


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.name)
def test_no_level_compiles_amx_or_the_build_machines_own_instructions(
    level: cpu_levels.CpuLevel,
) -> None:
    args = cmake_args(level)
    assert args[0] == "-DGGML_NATIVE=OFF"
    assert [a for a in args if "AMX" in a] == [
        f"-DGGML_AMX_{x}=OFF" for x in ("TILE", "INT8", "BF16")
    ]
    # Every extension ggml knows is named, on or off: nothing is left to the compiler's host.
    assert len(args) == 15


def test_each_rung_needs_what_the_one_below_needs() -> None:
    for lower, higher in itertools.pairwise(LEVELS):
        assert lower.cpu_flags <= higher.cpu_flags
        assert set(lower.ggml_options) <= set(higher.ggml_options)


def test_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse4_2 avx2\n\nprocessor\t: 1\n")
    assert cpu_flags(cpuinfo) == {"fpu", "sse4_2", "avx2"}
    assert cpu_flags(tmp_path / "absent") == frozenset()


def test_missing_flags_name_what_the_cpu_lacks() -> None:
    assert missing_flags(level_named("zen4"), SAPPHIRE_RAPIDS) == frozenset()
    haswell_cpu = level_named("haswell").cpu_flags
    assert missing_flags(level_named("skylakex"), haswell_cpu) == {
        "avx512f",
        "avx512cd",
        "avx512vl",
        "avx512dq",
        "avx512bw",
    }
    with pytest.raises(ValueError, match="expected one of x64, sse42"):
        level_named("native")


def test_the_recorded_level_is_read_from_the_environment(tmp_path: Path) -> None:
    assert recorded_level(tmp_path) is None
    (tmp_path / BUILD_RECORD_NAME).write_text(json.dumps({"level": "icelake"}))
    assert recorded_level(tmp_path) == level_named("icelake")
    (tmp_path / BUILD_RECORD_NAME).write_text("{not json")
    assert recorded_level(tmp_path) is None


def test_setup_runs_the_module_as_a_script_with_the_standard_library_only() -> None:
    """scripts/setup.sh runs it with the system's Python, before any dependency exists."""
    script = [sys.executable, "-I", cpu_levels.__file__]
    done = subprocess.run([*script, "haswell"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    name, args = done.stdout.splitlines()
    assert name == "haswell" and args.split() == cmake_args(level_named("haswell"))
    environment = {**os.environ, cpu_levels.LEVEL_VARIABLE: "sse42"}
    named = subprocess.run(script, capture_output=True, text=True, env=environment)
    assert named.stdout.splitlines()[0] == "sse42"
    best = subprocess.run(script, capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert best.stdout.splitlines()[0] == best_level(cpu_flags()).name
