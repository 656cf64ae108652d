"""`threadwise organizations` and `threadwise aspects`: an organization's defaults, quota and
custom aspects."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.cli.conftest import run
from threadwise.cli import main


def test_organization_policies(
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0  # the default tenant
    transcript = tmp_path / "transcript.txt"
    transcript.write_text("Ana: My order is late.\nAgent: So sorry, I'm fixing it now.\n")
    put = ["aspects", "put", "o1", "tone", "--instruction", "Say how the agent sounded."]
    code, out, _ = run(
        capsys, *put, "--example-conversation", str(transcript), "--example-answer", "Sorry."
    )
    assert code == 0 and "saved aspect tone" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("Bo: I'm leaving.\n"))
    churn = ["aspects", "put", "o1", "churnRisk", "--instruction", "Say if they may leave."]
    assert run(capsys, *churn, "--example-conversation", "-", "--example-answer", "High.")[0] == 0

    code, out, _ = run(capsys, "organizations", "set", "o1", "--aspects", "issue,Tone")
    assert code == 0
    assert "summary aspects       issue, tone" in out and "redact personal data  no default" in out
    code, out, _ = run(capsys, "organizations", "set", "o1", "--redact", "mask", "--json")
    shown = json.loads(out)
    assert shown["summary_aspects"] == ["issue", "tone"]  # not given: as it was
    assert shown["redact_personal_data"] == "mask"

    code, out, _ = run(capsys, "organizations", "show", "o1", "--json")
    assert code == 0 and json.loads(out) == {**shown, "tenant": "default", "organization_id": "o1"}
    assert [aspect["name"] for aspect in shown["custom_aspects"]] == ["churnRisk", "tone"]
    tone = shown["custom_aspects"][1]
    assert (
        tone["example_conversation"]
        == "Ana: My order is late.\nAgent: So sorry, I'm fixing it now."
    )
    assert shown["custom_aspects"][0]["example_conversation"] == "Bo: I'm leaving."
    code, out, _ = run(capsys, "organizations", "show", "o1")
    assert "custom aspects:" in out and "      Agent: So sorry, I'm fixing it now." in out

    code, out, _ = run(capsys, "organizations", "list")
    assert code == 0
    assert out.split("\n")[1].split() == [
        "default",
        "o1",
        "issue,tone",
        "mask",
        "-",
        "-",
        "churnRisk,tone",
    ]
    code, out, _ = run(capsys, "aspects", "list", "o1", "--json")
    assert [aspect["name"] for aspect in json.loads(out)] == ["churnRisk", "tone"]

    code, _, err = run(capsys, "aspects", "remove", "o1", "tone")
    assert code == 2 and "set the defaults without it first" in err
    assert run(capsys, "aspects", "remove", "o1", "churnRisk")[0] == 0
    code, _, err = run(capsys, "aspects", "remove", "o1", "churnRisk")
    assert code == 1 and "has no aspect 'churnRisk'" in err
    code, out, _ = run(capsys, "organizations", "set", "o1", "--aspects", "", "--redact", "off")
    assert code == 0 and "summary aspects       no default" in out
    assert run(capsys, "aspects", "remove", "o1", "tone")[0] == 0
    code, out, _ = run(capsys, "organizations", "list", "--json")
    assert json.loads(out) == []
    assert "no custom aspects" in run(capsys, "aspects", "list", "o1")[1]


def test_organization_policy_mistakes(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "organizations", "set", "o1", "--tenant", "acme", "--redact", "mask")
    assert code == 2 and "There is no tenant 'acme'" in err
    assert run(capsys, "clients", "create", "--org", "o1", "--tenant", "acme")[0] == 0
    code, _, err = run(capsys, "organizations", "set", "o1", "--tenant", "acme")
    assert code == 2 and "give --aspects, --redact, --monthly-characters, --webhook-url," in err
    code, _, err = run(capsys, "organizations", "set", "o1", "--tenant", "acme", "--aspects", "x")
    assert code == 2 and "'x' is not a summary aspect" in err
    aspect = ["aspects", "put", "o1", "recap", "--tenant", "acme", "--instruction", "Sum up."]
    code, _, err = run(
        capsys, *aspect, "--example-conversation", "A: hi", "--example-answer", "Hi."
    )
    assert code == 2 and "'recap' is a built-in aspect" in err
    code, _, err = run(capsys, "organizations", "list", "--tenant", "nobody")
    assert code == 2 and "There is no tenant 'nobody'" in err
    with pytest.raises(SystemExit):
        main(["organizations", "set", "o1", "--redact", "yes"])  # not one of the choices
    capsys.readouterr()


def test_organization_webhook_url(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0
    url = "https://93.184.215.14/threadwise"  # a public address: nothing to resolve
    code, out, _ = run(capsys, "organizations", "set", "o1", "--webhook-url", url)
    assert code == 0 and f"webhook URL           {url}" in out
    code, out, _ = run(capsys, "organizations", "show", "o1", "--json")
    assert json.loads(out)["webhook_url"] == url
    code, out, _ = run(capsys, "organizations", "list")
    assert out.split("\n")[1].split() == ["default", "o1", "-", "-", "-", url, "-"]

    for refused, reason in (
        ("ftp://93.184.215.14/", "must start with https:// or http://"),
        ("http://127.0.0.1:8080/hook", "a loopback address"),
        ("http://169.254.169.254/", "a cloud metadata address"),
    ):
        code, _, err = run(capsys, "organizations", "set", "o1", "--webhook-url", refused)
        assert code == 2 and reason in err
    code, out, _ = run(capsys, "organizations", "show", "o1", "--json")
    assert json.loads(out)["webhook_url"] == url  # as it was

    code, out, _ = run(capsys, "organizations", "set", "o1", "--webhook-url", "", "--json")
    assert code == 0 and json.loads(out)["webhook_url"] is None
    assert json.loads(run(capsys, "organizations", "list", "--json")[1]) == []


def test_an_allowed_host_may_be_the_default_webhook(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0
    monkeypatch.setenv("THREADWISE_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1:8080")
    url = "http://127.0.0.1:8080/hook"
    code, out, _ = run(capsys, "organizations", "set", "o1", "--webhook-url", url, "--json")
    assert code == 0 and json.loads(out)["webhook_url"] == url


def test_organization_experimental_languages(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0
    code, out, _ = run(capsys, "organizations", "set", "o1", "--experimental-languages", "yes")
    assert code == 0 and "experimental languages allowed" in out
    code, out, _ = run(capsys, "organizations", "show", "o1", "--json")
    assert json.loads(out)["experimental_languages"] is True
    code, out, _ = run(
        capsys, "organizations", "set", "o1", "--experimental-languages", "no", "--json"
    )
    assert code == 0 and json.loads(out)["experimental_languages"] is False
    assert json.loads(run(capsys, "organizations", "list", "--json")[1]) == []
