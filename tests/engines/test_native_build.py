"""The installed llama.cpp library, read instruction by instruction: no AMX, nothing this CPU
cannot run; and a crash of native code in a child process reported as a sentence."""

from __future__ import annotations

import signal
import sys

import pytest

from threadwise.engines.cpu_levels import cpu_flags, level_named, recorded_level
from threadwise.engines.llama_probe import run_probe
from threadwise.engines.native_build import (
    AMX,
    LibraryInstructions,
    NativeBuildError,
    check_cpu,
    extensions_in,
    inspect_library,
    unsupported,
)


@pytest.fixture(scope="module")
def installed() -> LibraryInstructions:
    # objdump comes with binutils, which scripts/setup.sh installs for the tests: its absence
    # is a failure here, not a skip.
    return inspect_library()


def test_the_installed_library_has_no_amx_instructions(installed: LibraryInstructions) -> None:
    """No run-time probe proves AMX usable (the tile state is not granted on every kernel:
    SIGILL), so a build with AMX kernels is wrong on every machine, AMX or not."""
    assert installed.libraries, "llama-cpp-python's lib directory holds no shared library"
    assert installed.using(AMX) == []


def test_the_installed_library_uses_only_what_this_cpu_runs(installed: LibraryInstructions) -> None:
    assert unsupported(installed, cpu_flags()) == {}


def test_the_recorded_level_covers_every_instruction_of_the_library(
    installed: LibraryInstructions,
) -> None:
    """What setup recorded is what was built: the cheap check before each load can be trusted."""
    level = recorded_level()
    assert level is not None, "scripts/setup.sh records the level it built llama.cpp for"
    assert installed.extensions <= level.cpu_flags


def test_amx_and_avx512_are_recognised_in_disassembly() -> None:
    lines = [
        "0000000000012340 <ggml_backend_amx_mul_mat>:",
        "   12340:\ttilezero %tmm4",
        "   12344:\tvpdpbusd %zmm1,%zmm2,%zmm3",
        "   12348:\t{vex} vpdpbusd %ymm1,%ymm2,%ymm3",
        "   1234c:\tvfmadd231ps %ymm1,%ymm2,%ymm3",
        "   12350:\tvmovdqu64 %xmm17,(%rax)",
        "   12354:\tvdpbf16ps %zmm1,%zmm2,%zmm3",
    ]
    assert extensions_in("\n".join(lines)) == {
        AMX,
        "avx512f",
        "avx512_vnni",
        "avx_vnni",
        "fma",
        "avx512_bf16",
        "avx",
    }
    assert extensions_in("   10:\tvpaddd %ymm1,%ymm2,%ymm3") == {"avx2", "avx"}
    assert extensions_in("   10:\tmov %rax,%rbx\n   14:\tpaddd %xmm1,%xmm2") == frozenset()


def test_amx_is_refused_even_on_a_cpu_that_advertises_it() -> None:
    from pathlib import Path

    found = LibraryInstructions({Path("libggml-cpu.so"): frozenset({AMX, "avx2"})})
    assert unsupported(found, frozenset({AMX, "avx2", "avx"})) == {AMX: [Path("libggml-cpu.so")]}


def test_a_library_built_for_more_than_this_cpu_is_refused_before_loading() -> None:
    with pytest.raises(NativeBuildError, match=r"'zen4'.*avx512_bf16.*make serve"):
        check_cpu(level_named("icelake").cpu_flags, level_named("zen4"))
    check_cpu(level_named("zen4").cpu_flags, level_named("haswell"))


def test_a_native_crash_in_the_child_process_becomes_a_sentence() -> None:
    kill = f"import os; os.kill(os.getpid(), {int(signal.SIGILL)})"
    result = run_probe([sys.executable, "-c", kill], timeout=60)
    assert not result.passed
    assert "SIGILL" in result.detail and "instruction this CPU cannot run" in result.detail
    failed = run_probe([sys.executable, "-c", "raise SystemExit('no such model')"], timeout=60)
    assert not failed.passed and failed.detail == "exit 1: no such model"
    assert run_probe([sys.executable, "-c", "print('Paris')"], timeout=60).passed
