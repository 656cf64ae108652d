"""The files of deploy/, read as their tools read them (no image is built or pulled here)."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts.cluster import find_haproxy

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S = DEPLOY / "k8s"
# Every Kubernetes manifest, the Secret's template (not applied as it is) included.
MANIFESTS = sorted([*K8S.glob("*.yaml"), K8S / "secret.yaml.example"])

# ${NAME}, ${NAME:?message}, ${NAME:-default}: compose's interpolation, and envsubst's (plain).
_VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:?[?-])(?P<arg>[^}]*))?\}")


def interpolate(text: str, values: Mapping[str, str]) -> str:
    """``text`` with its ``${…}`` placeholders replaced from ``values`` (and ``$$`` as ``$``),
    as compose does; a placeholder ``values`` lacks raises KeyError."""

    def value(match: re.Match[str]) -> str:
        name, op, arg = match["name"], match["op"], match["arg"]
        if name in values and (values[name] or not op or not op.startswith(":")):
            return values[name]
        if op and op.endswith("-"):
            return str(arg)
        raise KeyError(name)

    return _VARIABLE.sub(value, text).replace("$$", "$")


def placeholders(text: str) -> set[str]:
    return {match["name"] for match in _VARIABLE.finditer(text)}


def sample_values(text: str) -> dict[str, str]:
    """A value for every placeholder: long enough for a JWT secret, safe in a URL."""
    return {name: f"{name.lower()}-{'x' * 32}" for name in placeholders(text)}


def load_compose(text: str | None = None) -> dict[str, Any]:
    text = (DEPLOY / "compose.yaml").read_text() if text is None else text
    document: dict[str, Any] = yaml.safe_load(interpolate(text, sample_values(text)))
    return document


def load_manifests() -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = []
    for path in MANIFESTS:
        text = path.read_text()
        documents.extend(
            doc for doc in yaml.safe_load_all(interpolate(text, sample_values(text))) if doc
        )
    return documents


def find(documents: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [d for d in documents if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction: its keyword (upper case) and the rest of its line(s)."""

    keyword: str
    arguments: str


def dockerfile_stages(text: str) -> list[list[Instruction]]:
    """The instructions of each stage (each FROM starts one); comments and line
    continuations resolved as Docker reads them. ARGs before the first FROM are left out."""
    stages: list[list[Instruction]] = []
    pending = ""
    for line in text.splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue  # a comment, also between continued lines
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip() + " "
            continue
        keyword, _, arguments = pending.partition(" ")
        pending = ""
        if keyword.upper() == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(Instruction(keyword.upper(), arguments.strip()))
    return stages


def model_server_settings(command: list[str]) -> Any:
    """llama-cpp-python's server settings from its command line, read by its own parser."""
    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import Settings as ServerSettings

    assert command[:3] == ["python", "-m", "llama_cpp.server"]
    parser = argparse.ArgumentParser(prog="llama_cpp.server", exit_on_error=False)
    add_args_from_model(parser, ServerSettings)
    return parse_model_from_args(ServerSettings, parser.parse_args(command[3:]))


def haproxy_binary() -> str:
    """HAProxy, which scripts/with-services.sh installs; skips (fails on CI) without it."""
    binary = find_haproxy()
    if binary:
        return binary
    message = "haproxy is not installed: scripts/with-services.sh installs Debian's (make test)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def isolated_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """No THREADWISE_* variable of this machine leaks into settings a test loads."""
    for name in list(os.environ):
        if name.startswith("THREADWISE_"):
            monkeypatch.delenv(name)
    yield monkeypatch
