"""``threadwise doctor``: every part the service needs, checked, each with what to do if it fails.

Nothing here changes state: the model file is verified, not joined; the database's schema is
compared with the newest migration, not migrated (``serve`` migrates at start-up). The one
check that runs native model code does so in a child process, so that a crash (SIGILL from a
library built for another CPU, say) is reported as a sentence instead of ending the doctor.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from threadwise.config import RemoteEngine, Settings

# Memory the service needs beside the model file it maps: Python, the engines, the queues.
_BASE_MEMORY = 700 * 2**20
_SETUP = "run `make serve` (or scripts/setup.sh serve)"


@dataclass(frozen=True)
class Finding:
    """One part's verdict: what was found, and what to do when it failed."""

    part: str
    passed: bool
    detail: str
    fix: str = ""


Check = Callable[[Settings], Iterator[Finding]]


def run_checks(settings: Settings, checks: list[Check] | None = None) -> list[Finding]:
    """Every check's findings; a check that raises is a failed finding, not a crash."""
    findings: list[Finding] = []
    for check in checks or CHECKS:
        try:
            findings.extend(check(settings))
        except Exception as exc:  # the doctor reports; it never dies of what it examines
            part = check.__name__.removeprefix("check_").replace("_", " ")
            findings.append(Finding(part, False, f"{type(exc).__name__}: {exc}", _SETUP))
    return findings


def report(findings: list[Finding], out: TextIO) -> int:
    """Print one line a finding (and its fix); 0 when every finding passed, else 1."""
    width = max((len(f.part) for f in findings), default=0)
    for finding in findings:
        mark = "ok  " if finding.passed else "FAIL"
        print(f"{mark}  {finding.part:<{width}}  {finding.detail}", file=out)
        if not finding.passed and finding.fix:
            print(f"      {'':<{width}}  → {finding.fix}", file=out)
    failed = sum(not f.passed for f in findings)
    verdict = "all parts ready" if not failed else f"{failed} of {len(findings)} checks failed"
    print(f"threadwise doctor: {verdict}", file=out)
    return 0 if not failed else 1


def _uses_embedded_model(settings: Settings) -> bool:
    choices = [settings.default_engine, *settings.engine_profiles.values()]
    return any(not isinstance(choice, RemoteEngine) for choice in choices)


def check_python(settings: Settings) -> Iterator[Finding]:
    version = ".".join(map(str, sys.version_info[:3]))
    problems = []
    requirements = [
        r for r in importlib.metadata.requires("threadwise") or [] if "extra ==" not in r
    ]
    for requirement in requirements:
        name = re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0]
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{name} missing")
            continue
        pinned = re.search(r"==\s*([\w.]+)", requirement)
        if pinned and pinned[1] != installed:
            problems.append(f"{name} {installed} (wants {pinned[1]})")
    if problems:
        yield Finding("python", False, f"Python {version}; " + "; ".join(problems), _SETUP)
    else:
        yield Finding("python", True, f"Python {version}, {len(requirements)} packages as pinned")


def check_llama_build(settings: Settings) -> Iterator[Finding]:
    if not _uses_embedded_model(settings):
        return
    from threadwise.engines.cpu_levels import cpu_flags, recorded_level
    from threadwise.engines.native_build import (
        NativeBuildError,
        check_cpu,
        inspect_library,
        unsupported,
    )

    level = recorded_level()
    try:
        check_cpu()
    except NativeBuildError as exc:
        yield Finding("llama.cpp build", False, str(exc), _SETUP)
        return
    built = f"built for '{level.name}'" if level else "not built by setup (no record)"
    try:
        found = inspect_library()
    except FileNotFoundError as exc:
        # The decode in a child process below still tells whether the library runs here.
        yield Finding("llama.cpp build", True, f"{built}; instructions not read: {exc}")
        return
    bad = unsupported(found, cpu_flags())
    if bad:
        named = ", ".join(f"{ext} ({paths[0].name})" for ext, paths in bad.items())
        yield Finding(
            "llama.cpp build",
            False,
            f"{built}; the library uses instructions this process cannot run: {named}",
            "rebuild it for this CPU: rm -rf ~/.cache/threadwise/wheels .venv, then " + _SETUP,
        )
    else:
        used = ", ".join(sorted(found.extensions)) or "baseline x86-64"
        yield Finding("llama.cpp build", True, f"{built}; uses {used}, all runnable here")


def _model_path(settings: Settings) -> Path:
    from threadwise.engines.model_files import DEFAULT_MODEL

    return settings.llm_model_path or settings.model_dir / DEFAULT_MODEL.filename


def check_model(settings: Settings) -> Iterator[Finding]:
    if not _uses_embedded_model(settings):
        return
    from threadwise.engines.llama_probe import probe
    from threadwise.engines.model_files import DEFAULT_MODEL, verify_model_file

    path = _model_path(settings)
    if settings.llm_model_path is None:
        problem = verify_model_file(DEFAULT_MODEL, path)
        if problem:
            yield Finding("model file", False, problem, "run `threadwise prepare-model`")
            return
        yield Finding("model file", True, f"{path}: SHA-256 {DEFAULT_MODEL.sha256[:16]}… verified")
    elif not path.is_file():
        yield Finding(
            "model file",
            False,
            f"THREADWISE_LLM_MODEL_PATH names {path}, which is not a file",
            "point it at a GGUF model, or unset it to use the packaged default model",
        )
        return
    else:
        yield Finding("model file", True, f"{path} (THREADWISE_LLM_MODEL_PATH; not verified)")
    result = probe(path, settings.llm_threads)
    yield Finding(
        "model decode",
        result.passed,
        result.detail + (" (in a child process)" if result.passed else ""),
        ""
        if result.passed
        else "rebuild llama.cpp for this CPU: rm -rf ~/.cache/threadwise/"
        "wheels .venv, then " + _SETUP,
    )


def check_apertium(settings: Settings) -> Iterator[Finding]:
    from threadwise.engines.apertium import ApertiumEngine
    from threadwise.text.languages import TRANSLATION_LANGUAGES

    engine = ApertiumEngine(tuple(TRANSLATION_LANGUAGES))
    try:
        directions = engine.directions()
        if not directions:
            yield Finding(
                "apertium",
                False,
                "no language pair installed",
                "apt-get install apertium apertium-eng-spa apertium-fr-es apertium-es-pt "
                "apertium-eng-cat apertium-en-gl apertium-spa-ita apertium-es-ro",
            )
            return
        engine.load()  # starts each pipeline and sends a word through it
        listed = ", ".join(sorted(f"{s}→{t}" for s, t in directions))
        yield Finding("apertium", True, f"{len(directions)} directions translate: {listed}")
    finally:
        engine.close()


def check_bergamot(settings: Settings) -> Iterator[Finding]:
    from threadwise.engines.bergamot import BergamotEngine

    engine = BergamotEngine()
    try:
        engine.load()  # translates a sentence each way
        yield Finding("bergamot", True, "en→pt and pt→en translate")
    finally:
        engine.close()


def check_database(settings: Settings) -> Iterator[Finding]:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from threadwise.db.database import Database, database_url
    from threadwise.db.migrate import alembic_config

    database = Database(database_url(settings))
    try:
        with database.engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
        name = "postgresql" if database.dialect == "postgresql" else database.dialect
        where = database.engine.url.render_as_string(hide_password=True)
        state = (
            f"schema at {head} (newest)"
            if current == head
            else f"schema at {current or 'none'}, newest {head}: `serve` migrates at start-up"
        )
        yield Finding(f"database ({name})", True, f"{where}: {state}")
    except Exception as exc:
        yield Finding(
            "database",
            False,
            f"cannot connect: {type(exc).__name__}: {str(exc).splitlines()[0]}",
            "check THREADWISE_DATABASE_URL, and that the server runs and accepts this user",
        )
    finally:
        database.close()


def check_redis(settings: Settings) -> Iterator[Finding]:
    if not settings.redis_url:
        return
    from threadwise.shared_redis import connect

    client = connect(settings.redis_url)
    try:
        client.ping()
        yield Finding("redis", True, "answers PING")
    except Exception as exc:
        yield Finding("redis", False, f"{type(exc).__name__}: {exc}", "check THREADWISE_REDIS_URL")
    finally:
        client.close()


def check_remote_engines(settings: Settings) -> Iterator[Finding]:
    import httpx2

    from threadwise.engines.remote.servers import answers

    choices = {"default": settings.default_engine, **settings.engine_profiles}
    for name, choice in choices.items():
        if not isinstance(choice, RemoteEngine):
            continue

        async def ask(url: str) -> str | None:
            async with httpx2.AsyncClient(timeout=5.0) as client:
                try:
                    return None if await answers(client, url) else "answers with a 5xx status"
                except httpx2.HTTPError as exc:
                    return f"does not answer ({type(exc).__name__}: {exc})"

        part = f"model server ({name})"
        problem = asyncio.run(ask(choice.url))
        if problem is None:
            yield Finding(part, True, f"{choice.url} answers")
        else:
            fix = "start the model server, or fix its URL"
            yield Finding(part, False, f"{choice.url} {problem}", fix)


def _available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def check_memory(settings: Settings) -> Iterator[Finding]:
    available = _available_memory()
    if available is None:
        return
    needed = _BASE_MEMORY
    if _uses_embedded_model(settings) and _model_path(settings).is_file():
        needed += _model_path(settings).stat().st_size
    gib = 2**30
    detail = f"{available / gib:.1f} GiB available, {needed / gib:.1f} GiB needed"
    yield Finding(
        "memory",
        available >= needed,
        detail,
        "free memory, or use a smaller model (THREADWISE_LLM_MODEL_PATH) or a model server",
    )


CHECKS: list[Check] = [
    check_python,
    check_memory,
    check_llama_build,
    check_model,
    check_apertium,
    check_bergamot,
    check_database,
    check_redis,
    check_remote_engines,
]
