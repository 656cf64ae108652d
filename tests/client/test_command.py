"""`threadwise --url URL summarize|translate FILE` and `threadwise-client`: a request body or
a simple conversation sent to a live server with the client (fast-tier translations: no model
time), the envelope printed as JSON, refusals as a line and an exit code."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.client.live import ENGLISH, new_account
from tests.conftest import LiveServer, minimal_body
from threadwise.cli import main
from threadwise.client import command
from threadwise.services import Services


@pytest.fixture(autouse=True)
def _isolated(isolated_logging: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """main() configures logging and reads the settings: both kept to this test."""
    monkeypatch.setenv("THREADWISE_DATA_DIR", str(tmp_path))
    for variable in ("THREADWISE_API_KEY", "THREADWISE_CLIENT_ID", "THREADWISE_CLIENT_SECRET"):
        monkeypatch.delenv(variable, raising=False)


def printed_json(out: str) -> Any:
    # main() configures logging for the process, where the live server's access log then
    # prints too: the envelope is what follows those lines.
    return json.loads(out[out.index("{\n") :])


def texts(envelope: dict[str, Any]) -> list[str]:
    return [i["content"] for r in envelope["message"]["results"] for i in r["response"]]


def test_a_request_body_translated_by_the_server(
    live_server: LiveServer, services: Services, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    account = new_account(live_server, services)
    body = minimal_body(context={"organizationId": account.organization})
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    code = main(
        [
            *("--url", live_server.url),
            *("--client-id", account.client_id, "--client-secret", account.client_secret),
            *("translate", str(path), "--target", "es", "--target", "pt", "--mode", "fast"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    envelope = printed_json(out)
    spanish, portuguese = envelope["message"]["results"]
    assert [i["targetLanguage"] for i in spanish["response"]] == ["es", "es"]
    assert [i["targetLanguage"] for i in portuguese["response"]] == ["pt", "pt"]
    assert "7781" in spanish["response"][0]["content"]


def test_a_conversation_from_stdin_with_an_api_key_from_the_environment(
    live_server: LiveServer,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    account = new_account(live_server, services)
    key = services.auth.api_keys.create(account.client_id).key
    monkeypatch.setenv("THREADWISE_API_KEY", key)
    monkeypatch.setenv("THREADWISE_URL", live_server.url)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"messages": [ENGLISH]})))
    argv = ["translate", "-", "--org", account.organization, "--to", "es", "--mode", "fast"]
    assert command.main(argv) == 0
    [translated] = texts(printed_json(capsys.readouterr().out))
    assert "7781" in translated


def test_a_refusal_is_its_code_and_message(
    live_server: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(minimal_body(context={"organizationId": "org-globex"})))
    credentials = [
        "--client-id",
        live_server.client_id,
        "--client-secret",
        live_server.client_secret,
    ]
    argv = ["--url", live_server.url, *credentials, "translate", str(path), "--to", "es"]
    assert main(argv) == 2
    assert "FORBIDDEN_ORGANIZATION" in capsys.readouterr().err


def test_a_conversation_needs_an_organization(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "texts.json"
    path.write_text(json.dumps(["Hello"]))
    argv = ["--url", "http://127.0.0.1:9", "--api-key", "twk_x", "translate", str(path)]
    assert main(argv) == 2
    assert "--org ORG" in capsys.readouterr().err


def test_the_client_command_needs_a_url(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("THREADWISE_URL", raising=False)
    assert command.main(["translate", "-", "--to", "es"]) == 2
    assert "--url URL" in capsys.readouterr().err
