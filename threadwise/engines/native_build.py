"""What the installed llama.cpp library will ask of the CPU, checked before it is loaded.

Two looks, one cheap and one exact. ``check_cpu`` compares the instruction level that
``scripts/setup.sh`` recorded for the library (``cpu_levels``) with the running CPU's flags:
it runs before every load, so a library built for another machine becomes a sentence, not
SIGILL. ``inspect_library`` reads the library's machine code (``objdump -d``) and names every
extension its instructions use: the test suite and ``threadwise doctor`` hold the build to it,
whoever built it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from threadwise.engines.cpu_levels import CpuLevel, cpu_flags, missing_flags, recorded_level

# AMX is used only where a probe has shown its tile instructions run: none does (see
# cpu_levels), so any AMX instruction in the library is a wrong build.
AMX = "amx_tile"

# An instruction line of `objdump -d --no-show-raw-insn`: address, tab, {vex} prefix, mnemonic.
_MNEMONIC = re.compile(r"^ *[0-9a-f]+:\t(\{vex\} +)?([a-z][\w.]*)", re.MULTILINE)
_AMX_MNEMONIC = re.compile(
    r"ldtilecfg|sttilecfg|tilerelease|tilezero|tileloadd\w*|tilestored|tdp\w+"
)
_VNNI_MNEMONIC = re.compile(r"vpdp(?:bus|wss)ds?")
_BF16_MNEMONIC = re.compile(r"vdpbf16ps|vcvtne2?ps2bf16\w*")
_FMA_MNEMONIC = re.compile(r"vf(?:n?m(?:add|sub)|maddsub|msubadd)\d{3}[ps][sd]")
# 512-bit registers, the upper sixteen vector registers or the opmask registers: only AVX-512
# encodes them. Integer operations on 256-bit registers are AVX2's (AVX's are floating point).
_AVX512_OPERAND = re.compile(r"%zmm\d|%[xy]mm(?:1[6-9]|2\d|3[01])\b|%k[1-7]\b")
_AVX2_INSTRUCTION = re.compile(r"\tvp\w* [^\n]*%ymm")


class NativeBuildError(RuntimeError):
    """The installed llama.cpp library uses instructions this CPU cannot run: nothing was loaded."""


@dataclass(frozen=True)
class LibraryInstructions:
    """The extensions each shared library of the build uses (cpuinfo names)."""

    libraries: dict[Path, frozenset[str]]

    @property
    def extensions(self) -> frozenset[str]:
        return frozenset().union(*self.libraries.values())

    def using(self, extension: str) -> list[Path]:
        return [path for path, found in self.libraries.items() if extension in found]


def library_dir() -> Path | None:
    """llama-cpp-python's directory of shared libraries, without loading them."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def check_cpu(flags: frozenset[str] | None = None, level: CpuLevel | None = None) -> None:
    """Raise ``NativeBuildError`` if the recorded build needs an extension this CPU lacks.

    A library that setup did not build (no record) is not judged here: ``inspect_library``
    and the doctor's decode in a child process judge it.
    """
    level = level or recorded_level()
    if level is None:
        return
    lacking = missing_flags(level, cpu_flags() if flags is None else flags)
    if lacking:
        raise NativeBuildError(
            f"llama.cpp here was compiled for the '{level.name}' instruction level, which uses "
            f"{', '.join(sorted(lacking))}; this CPU lacks them. Run `make serve` (or "
            "scripts/setup.sh) on this machine to build it for this CPU."
        )


def extensions_in(disassembly: str) -> frozenset[str]:
    """The extensions (as /proc/cpuinfo names them) that ``objdump -d`` output uses."""
    found: set[str] = set()
    for vex, mnemonic in set(_MNEMONIC.findall(disassembly)):
        if _AMX_MNEMONIC.fullmatch(mnemonic):
            found.add(AMX)
        elif _VNNI_MNEMONIC.fullmatch(mnemonic):
            # With the {vex} prefix it is AVX-VNNI, otherwise AVX512-VNNI's encoding.
            found.add("avx_vnni" if vex else "avx512_vnni")
        elif _BF16_MNEMONIC.fullmatch(mnemonic):
            found.add("avx512_bf16")
        elif _FMA_MNEMONIC.fullmatch(mnemonic):
            found.add("fma")
    if "%tmm" in disassembly:
        found.add(AMX)
    if _AVX512_OPERAND.search(disassembly):
        found.add("avx512f")
    if _AVX2_INSTRUCTION.search(disassembly):
        found.add("avx2")
    if "%ymm" in disassembly:
        found.add("avx")
    return frozenset(found)


def inspect_library(directory: Path | None = None) -> LibraryInstructions:
    """Disassemble each shared library of the build and name the extensions it uses.

    The wheel holds each library under its versioned names as copies, not links: a copy
    already read is not read again.
    """
    directory = directory or library_dir()
    if directory is None or not directory.is_dir():
        raise FileNotFoundError("llama-cpp-python is not installed (no llama_cpp/lib)")
    objdump = shutil.which("objdump")
    if objdump is None:
        raise FileNotFoundError("objdump is not installed (Debian: apt-get install binutils)")
    libraries: dict[Path, frozenset[str]] = {}
    seen: dict[str, frozenset[str]] = {}
    for library in sorted(directory.glob("*.so*")):
        if library.is_symlink() or not library.is_file():
            continue
        digest = hashlib.sha256(library.read_bytes()).hexdigest()
        if digest not in seen:
            done = subprocess.run(
                [objdump, "-d", "--no-show-raw-insn", str(library)],
                capture_output=True,
                text=True,
                errors="replace",
            )
            if done.returncode != 0:
                raise RuntimeError(f"objdump could not read {library}: {done.stderr.strip()}")
            seen[digest] = extensions_in(done.stdout)
        libraries[library] = seen[digest]
    return LibraryInstructions(libraries)


def unsupported(found: LibraryInstructions, flags: frozenset[str]) -> dict[str, list[Path]]:
    """Each extension the libraries use that the CPU (``flags``) cannot run, or AMX at all."""
    return {
        extension: found.using(extension)
        for extension in sorted(found.extensions)
        if extension == AMX or extension not in flags
    }
