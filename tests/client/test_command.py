"""`threadwise --url URL summarize|translate FILE` and `threadwise-client`: a request body or
a simple conversation sent to a live server with the client (fast-tier translations: no model
time), the envelope printed as JSON, refusals as a line and an exit code. Jobs (`--submit`,
`--wait`, `jobs list|show|cancel`) against the jobs API played over a fake transport."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.client.jobs_server import SUMMARY_ENVELOPE, JobsServer
from tests.client.live import ENGLISH, new_account
from tests.conftest import LiveServer, minimal_body
from threadwise.cli import main
from threadwise.client import ThreadwiseClient, command
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


async def no_wait(seconds: float) -> None:
    pass


def playing(monkeypatch: pytest.MonkeyPatch, server: JobsServer) -> list[str]:
    """The commands' client talks to ``server``, its polls not waited for; the arguments
    before the command."""
    fake = functools.partial(
        ThreadwiseClient, transport=httpx2.MockTransport(server), sleep=no_wait
    )
    monkeypatch.setattr(command, "ThreadwiseClient", fake)
    return ["--url", "http://threadwise.test", "--api-key", "twk_test"]


def conversation_file(tmp_path: Path) -> str:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"messages": ["My parcel 7781 is late."]}))
    return str(path)


def test_submit_prints_the_queued_job(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = JobsServer()
    connection = playing(monkeypatch, server)
    file = conversation_file(tmp_path)
    argv = [
        "translate",
        file,
        "--org",
        "o",
        "--to",
        "es",
        "--submit",
        "--webhook",
        "https://r.test",
    ]
    assert main([*connection, *argv]) == 0
    job = printed_json(capsys.readouterr().out)
    assert job["status"] == "queued" and job["jobId"] in server.jobs
    assert job["webhook"]["url"] == "https://r.test"
    [submitted] = server.requests
    assert submitted.url.path == "/jobs/translate" and submitted.headers["Idempotency-Key"]


def test_wait_prints_the_envelope_as_the_call_would(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    connection = playing(monkeypatch, JobsServer())
    argv = ["summarize", conversation_file(tmp_path), "--org", "o", "--wait"]
    assert command.main([*connection, *argv]) == 0
    assert json.loads(capsys.readouterr().out) == SUMMARY_ENVELOPE


def test_a_failed_job_waited_for_is_its_code_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    connection = playing(monkeypatch, JobsServer(outcome="failed"))
    argv = ["summarize", conversation_file(tmp_path), "--org", "o", "--wait"]
    assert main([*connection, *argv]) == 1
    assert "PROCESSING_FAILED: the engine failed" in capsys.readouterr().err


def test_jobs_list_show_and_cancel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = JobsServer()
    connection = playing(monkeypatch, server)
    file = conversation_file(tmp_path)
    for _ in range(3):
        assert main([*connection, "translate", file, "--org", "o", "--to", "es", "--submit"]) == 0
    first, second, third = server.jobs
    capsys.readouterr()

    assert main([*connection, "jobs", "list", "--org", "o", "--limit", "2"]) == 0
    listed = printed_json(capsys.readouterr().out)["jobs"]
    assert [job["jobId"] for job in listed] == [third, second]
    assert main([*connection, "jobs", "cancel", first]) == 0
    assert printed_json(capsys.readouterr().out)["status"] == "cancelled"
    assert main([*connection, "jobs", "show", second]) == 0
    assert printed_json(capsys.readouterr().out)["status"] == "running"
    assert command.main([*connection, "jobs", "list", "--status", "cancelled"]) == 0
    cancelled = json.loads(capsys.readouterr().out)["jobs"]
    assert [job["jobId"] for job in cancelled] == [first]
    assert main([*connection, "jobs", "show", "job_gone"]) == 2
    assert "NOT_FOUND" in capsys.readouterr().err
