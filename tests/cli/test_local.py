"""`threadwise summarize` and `threadwise translate`: a request body answered here, read as
the API reads it (the real engines, fast tier: no model call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from threadwise.cli import main


def test_the_request_file_is_read_as_the_api_reads_it(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 1_000 + "]" * 1_000)
    assert main(["translate", str(path)]) == 2
    assert "nested more than 32 levels deep" in capsys.readouterr().err


TRANSLATE_EXAMPLE = Path(__file__).parents[2] / "examples" / "translate-request.json"


def test_translate_prints_one_result_per_target(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["translate", str(TRANSLATE_EXAMPLE), "--to", "es", "--to", "pt-BR", "--mode", "fast"]
    code = main(argv)
    assert code == 0
    envelope = json.loads(capsys.readouterr().out)
    spanish, portuguese = envelope["message"]["results"]
    assert [i["targetLanguage"] for i in spanish["response"]] == ["es", "es"]
    assert spanish["response"][1]["engine"] == "apertium:eng-spa"
    assert portuguese["response"][1]["engine"] == "bergamot:en-pt-tiny"
    assert "`status --all` 👍" in portuguese["response"][1]["content"]


def test_translate_reports_what_to_fix(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.loads(TRANSLATE_EXAMPLE.read_text())
    body["session"]["channel"]["language"] = ""
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    assert main(["translate", str(path)]) == 2
    assert "MISSING_TARGET_LANGUAGE" in capsys.readouterr().err


def test_a_job_needs_a_server(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for option in ("--submit", "--wait", "--webhook=https://r.test"):
        assert main(["translate", str(TRANSLATE_EXAMPLE), "--to", "es", option]) == 2
        assert "give --url URL" in capsys.readouterr().err
