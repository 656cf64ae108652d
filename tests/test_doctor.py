"""``threadwise doctor``: each part checked for real, a failure named with what to do, exit 0
only when every part passes."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts.cluster import REDIS_VARIABLE
from tests.conftest import service_url
from threadwise.config import Settings
from threadwise.doctor import (
    Finding,
    check_apertium,
    check_database,
    check_model,
    check_python,
    check_redis,
    check_remote_engines,
    report,
    run_checks,
)


def test_the_report_names_each_failure_with_its_fix_and_exits_1() -> None:
    out = io.StringIO()
    findings = [
        Finding("python", True, "Python 3.11.7"),
        Finding("model file", False, "/m.gguf does not exist", "run `threadwise prepare-model`"),
    ]
    assert report(findings, out) == 1
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("ok    python") and lines[1].startswith("FAIL  model file")
    assert lines[2].strip() == "→ run `threadwise prepare-model`"
    assert lines[-1] == "threadwise doctor: 1 of 2 checks failed"
    assert report(findings[:1], io.StringIO()) == 0


def test_a_check_that_raises_is_a_failed_finding(tmp_path: Path) -> None:
    def check_broken(settings: Settings) -> Iterator[Finding]:
        raise OSError("disk on fire")
        yield  # a generator, like every check

    (finding,) = run_checks(Settings(data_dir=tmp_path), [check_broken])
    assert finding == Finding("broken", False, "OSError: disk on fire", finding.fix)
    assert "make serve" in finding.fix


def test_the_installed_packages_are_the_pinned_ones(tmp_path: Path) -> None:
    (finding,) = check_python(Settings(data_dir=tmp_path))
    assert finding.passed, finding.detail


def test_apertium_pairs_translate(tmp_path: Path) -> None:
    (finding,) = check_apertium(Settings(data_dir=tmp_path))
    assert finding.passed and "en→es" in finding.detail


def test_a_model_file_that_is_not_a_model_fails_in_the_child_not_the_doctor(
    tmp_path: Path,
) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model" * 100)
    found = list(check_model(Settings(data_dir=tmp_path, llm_model_path=junk)))
    assert [f.part for f in found] == ["model file", "model decode"]
    assert found[0].passed and not found[1].passed
    assert found[1].detail.startswith("exit 1:")
    missing = list(check_model(Settings(data_dir=tmp_path, llm_model_path=tmp_path / "none")))
    assert [(f.part, f.passed) for f in missing] == [("model file", False)]


def test_the_database_is_reached_and_its_schema_compared(tmp_path: Path, database_url: str) -> None:
    (finding,) = check_database(Settings(data_dir=tmp_path, database_url=database_url))
    assert finding.passed, finding.detail
    assert "serve` migrates at start-up" in finding.detail or "(newest)" in finding.detail
    (unreachable,) = check_database(
        Settings(data_dir=tmp_path, database_url="postgresql://nobody:x@127.0.0.1:9/none")
    )
    assert not unreachable.passed and "THREADWISE_DATABASE_URL" in unreachable.fix


def test_redis_is_checked_when_configured(tmp_path: Path) -> None:
    assert list(check_redis(Settings(data_dir=tmp_path))) == []
    (finding,) = check_redis(Settings(data_dir=tmp_path, redis_url=service_url(REDIS_VARIABLE)))
    assert finding.passed, finding.detail
    (down,) = check_redis(Settings(data_dir=tmp_path, redis_url="redis://127.0.0.1:9/0"))
    assert not down.passed and down.fix == "check THREADWISE_REDIS_URL"


def test_a_model_server_is_checked_when_configured(tmp_path: Path) -> None:
    assert list(check_remote_engines(Settings(data_dir=tmp_path))) == []
    (down,) = check_remote_engines(Settings(data_dir=tmp_path, llm_url="http://127.0.0.1:9/v1"))
    assert (down.part, down.passed) == ("model server (default)", False)


@pytest.mark.model
def test_the_doctor_passes_on_this_machine(tmp_path: Path) -> None:
    """What `make serve` runs before serving: the real model decoded in a child process."""
    out = io.StringIO()
    assert report(run_checks(Settings(data_dir=tmp_path)), out) == 0, out.getvalue()
    assert "model decode" in out.getvalue() and "llama.cpp build" in out.getvalue()


def test_the_command_line_has_the_doctor() -> None:
    from threadwise.cli import build_parser

    assert build_parser().parse_args(["doctor"]).run.__name__ == "_doctor"
