"""The ``threadwise translate`` command, with the real engines (fast tier: no model call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from threadwise.cli import main

EXAMPLE = Path(__file__).parent.parent / "examples" / "translate-request.json"


def test_translate_prints_one_result_per_target(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["translate", str(EXAMPLE), "--to", "es", "--to", "pt-BR", "--mode", "fast"])
    assert code == 0
    envelope = json.loads(capsys.readouterr().out)
    spanish, portuguese = envelope["message"]["results"]
    assert [i["targetLanguage"] for i in spanish["response"]] == ["es", "es"]
    assert spanish["response"][1]["engine"] == "apertium:eng-spa"
    assert portuguese["response"][1]["engine"] == "bergamot:en-pt-tiny"
    assert "`status --all` 👍" in portuguese["response"][1]["content"]


def test_translate_reports_what_to_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = json.loads(EXAMPLE.read_text())
    body["session"]["channel"]["language"] = ""
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    assert main(["translate", str(path)]) == 2
    assert "MISSING_TARGET_LANGUAGE" in capsys.readouterr().err
