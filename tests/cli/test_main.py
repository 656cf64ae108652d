"""What `main` makes of a wrong setting: one sentence naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import run


@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        (
            "THREADWISE_ACCESS_TOKEN_SECONDS",
            "20",
            "THREADWISE_ACCESS_TOKEN_SECONDS=20 is out of range: it must be at least 60 and "
            "at most 86400.",
        ),
        (
            "THREADWISE_LLM_QUEUE_SIZE",
            "0",
            "THREADWISE_LLM_QUEUE_SIZE=0 is out of range: it must be at least 1.",
        ),
        (
            "THREADWISE_PORT",
            "eighty",
            "THREADWISE_PORT=eighty is not valid: Input should be a valid integer",
        ),
    ],
)
def test_a_wrong_setting_is_one_sentence_naming_it(
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    sentence: str,
) -> None:
    monkeypatch.setenv(variable, value)
    code, _, err = run(capsys, "clients", "list")
    assert code == 2
    assert err.startswith(f"threadwise: configuration: {sentence}")
    assert "Traceback" not in err and "pydantic" not in err and len(err.splitlines()) == 1


def test_a_wrong_secret_setting_is_named_but_not_shown(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for value in ('[{"secret": "s3cr3t-value"}]', '[{"secret": "s3cr3t-value"'):
        monkeypatch.setenv("THREADWISE_JWT_RETIRED_KEYS", value)
        code, _, err = run(capsys, "clients", "list")
        assert code == 2 and "THREADWISE_JWT_RETIRED_KEYS" in err.upper()
        assert "s3cr3t" not in err and "Traceback" not in err
