"""deploy/Dockerfile, read instruction by instruction: the model is joined and verified at
build time, the service runs as a user of its own, and /readyz is its health check."""

from __future__ import annotations

import hashlib
import re
import shlex
from pathlib import Path

from tests.deploy.conftest import DEPLOY, Instruction, dockerfile_stages
from threadwise.engines.cpu_levels import BUILD_RECORD_NAME, cmake_args, level_named
from threadwise.engines.model_files import PackagedModel, prepare_model

BUILD, FINAL = dockerfile_stages((DEPLOY / "Dockerfile").read_text())
SETUP = Path(__file__).resolve().parents[2] / "scripts" / "setup.sh"


def _all(stage: list[Instruction], keyword: str) -> list[str]:
    return [i.arguments for i in stage if i.keyword == keyword]


def test_two_stages_on_debian_python_3_11() -> None:
    base = "${PYTHON_IMAGE}"
    assert _all(BUILD, "FROM") == [f"{base} AS build"] and _all(FINAL, "FROM") == [base]
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim-bookworm$", text, re.MULTILINE)


def test_the_model_is_joined_and_verified_at_build_time() -> None:
    runs = _all(BUILD, "RUN")
    install = next(run for run in runs if "pip install" in run)
    assert 'pip install ".[model]"' in install
    prepare = next(run for run in runs if "threadwise prepare-model" in run)
    assert runs.index(prepare) > runs.index(install)
    # Joined into the directory the service reads at run time, which the final stage copies.
    model_dir = "THREADWISE_MODEL_DIR=/opt/threadwise/models"
    assert model_dir in " ".join(_all(BUILD, "ENV")) and model_dir in " ".join(_all(FINAL, "ENV"))
    assert "--from=build /opt/threadwise /opt/threadwise" in _all(FINAL, "COPY")


def test_the_joined_file_alone_is_enough(tmp_path: Path) -> None:
    """The image removes the model's parts once they are joined: a start finds the file and
    verifies it, and needs no part."""
    data = b"the joined model"
    model = PackagedModel(
        "model.gguf", len(data), hashlib.sha256(data).hexdigest(), ("no_such_part",), "-"
    )
    (tmp_path / "model.gguf").write_bytes(data)
    assert prepare_model(model, tmp_path) == tmp_path / "model.gguf"


def test_the_service_runs_unprivileged_with_its_state_in_a_volume() -> None:
    user = _all(FINAL, "USER")[-1]
    uid, _, gid = user.partition(":")
    assert int(uid) != 0 and int(gid) != 0  # numeric: runAsNonRoot can check it
    assert FINAL.index(Instruction("USER", user)) > max(
        i for i, instruction in enumerate(FINAL) if instruction.keyword == "RUN"
    )
    assert "THREADWISE_DATA_DIR=/var/lib/threadwise" in " ".join(_all(FINAL, "ENV"))
    assert _all(FINAL, "VOLUME") == ['["/var/lib/threadwise"]']


def test_it_serves_on_8000_with_readyz_as_its_health_check() -> None:
    assert _all(FINAL, "EXPOSE") == ["8000"]
    assert _all(FINAL, "CMD") == ['["threadwise", "serve", "--host", "0.0.0.0", "--port", "8000"]']
    (check,) = _all(FINAL, "HEALTHCHECK")
    assert check.startswith("--") and " CMD " in check
    assert "http://127.0.0.1:8000/readyz" in check


def test_the_runtime_has_the_debian_packages_setup_installs() -> None:
    """Apertium and the pairs scripts/setup.sh installs for serving (not apertium-apy, which
    only the benchmark needs)."""
    listed = re.search(r"^wanted=\((.*?)^\)", SETUP.read_text(), re.DOTALL | re.MULTILINE)
    assert listed
    entries = [line.split()[0] for line in listed[1].splitlines() if ":" in line.split("#")[0]]
    wanted = {entry.split(":")[0] for entry in entries if entry.startswith("apertium")}
    installed = {
        word
        for run in _all(FINAL, "RUN")
        if "apt-get install" in run
        for word in shlex.split(run.split("apt-get install", 1)[1].split("&&")[0])
        if not word.startswith("-")
    }
    assert wanted and wanted <= installed


def test_the_build_context_is_only_the_package() -> None:
    text = (DEPLOY / "Dockerfile.dockerignore").read_text()
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert rules[:4] == ["*", "!pyproject.toml", "!README.md", "!threadwise/"]
    copied = {part for args in _all(BUILD, "COPY") for part in args.split()[:-1]}
    assert copied == {"pyproject.toml", "README.md", "threadwise"}


def test_llama_cpp_is_built_for_a_named_level_without_amx() -> None:
    """Not the build machine's instructions (-march=native) and never AMX: the level is a rung
    of cpu_levels, haswell unless the builder asks, and recorded for the runtime check."""
    text = (DEPLOY / "Dockerfile").read_text()
    default = re.search(r"^ARG THREADWISE_CPU_LEVEL=(\w+)$", text, re.MULTILINE)
    assert default
    level = level_named(default[1])
    assert "avx512f" not in level.cpu_flags
    args = cmake_args(level)
    assert "-DGGML_NATIVE=OFF" in args
    assert {a for a in args if "AMX" in a} == {
        f"-DGGML_AMX_{x}=OFF" for x in ("TILE", "INT8", "BF16")
    }
    (install,) = [run for run in _all(BUILD, "RUN") if 'pip install ".[model]"' in run]
    assert 'cpu_levels.py "$THREADWISE_CPU_LEVEL"' in install and "CMAKE_ARGS=" in install
    assert BUILD_RECORD_NAME in install
    assert not [i for i in BUILD if "-march=native" in i.arguments and i.keyword != "#"]
