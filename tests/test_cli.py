"""The `threadwise` command: managing clients, organizations' policies and glossaries, the
first run a new user sees, translating."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from threadwise.cli import main
from threadwise.config import Settings
from threadwise.db.database import Database
from threadwise.engines.model_files import DEFAULT_MODEL
from threadwise.organizations.usage import UsageStore

pytestmark = pytest.mark.usefixtures("isolated_logging")  # main() configures logging


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("THREADWISE_DATA_DIR", str(tmp_path))
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_clients_lifecycle(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "clients", "create", "--org", "o1", "--org", "o2", "--json")
    assert code == 0
    created = json.loads(out)
    assert created["organizations"] == ["o1", "o2"]
    assert created["tenant"] == "default"
    client_id, secret = created["client_id"], created["client_secret"]

    code, out, _ = run(capsys, "clients", "list")
    assert code == 0
    assert client_id in out and "enabled" in out and "o1,o2" in out
    assert secret not in out

    code, out, _ = run(capsys, "clients", "rotate", client_id, "--json")
    rotated = json.loads(out)
    assert rotated["client_id"] == client_id
    assert rotated["client_secret"] not in (secret, "")

    assert run(capsys, "clients", "revoke", client_id)[0] == 0
    code, out, _ = run(capsys, "clients", "list", "--json")
    listed: list[dict[str, Any]] = json.loads(out)
    assert [(c["client_id"], c["enabled"]) for c in listed] == [(client_id, False)]
    assert "client_secret" not in listed[0]
    assert (data_dir / "threadwise.db").is_file()


def test_create_in_words(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "clients", "create", "--org", "o1", "--tenant", "acme", "--name", "acme app"
    )
    assert code == 0
    assert "client_secret  tws_" in out
    assert "shown only now" in out
    code, out, _ = run(capsys, "clients", "list", "--tenant", "acme")
    assert "acme app" in out


def test_mistakes(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "clients", "create", "--org", "o1", "--tenant", "not a label")
    assert code == 2 and "tenant name" in err
    code, _, err = run(capsys, "clients", "revoke", "twc_000000000000000000000000")
    assert code == 1 and "no client" in err
    with pytest.raises(SystemExit):
        main(["clients", "create"])  # --org is required
    capsys.readouterr()


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
    assert code == 2 and "give --aspects, --redact, --monthly-characters or several" in err
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


def test_a_monthly_quota_and_the_usage_it_counts(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0
    code, out, _ = run(capsys, "organizations", "set", "o1", "--monthly-characters", "1000")
    assert code == 0 and "monthly characters    1000 (UTC month)" in out
    code, out, _ = run(capsys, "organizations", "show", "o1", "--json")
    assert json.loads(out)["monthly_characters"] == 1000
    assert run(capsys, "organizations", "list")[1].split("\n")[1].split()[4] == "1000"

    now = datetime.now(UTC)
    day = now.date().isoformat()
    database = Database(f"sqlite:///{data_dir / 'threadwise.db'}")
    store = UsageStore(database)
    store.add("default", "o1", "summarize", 400, 900, 120, now)
    store.add("default", "o1", "translate", 150, 0, 0, now)
    store.close()
    database.close()

    code, out, _ = run(capsys, "usage", "o1", "--from", day, "--to", day)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"usage of organization o1 (tenant default), {day} to {day} (UTC days)"
    assert lines[1].split() == [
        "DATE",
        "OPERATION",
        "REQUESTS",
        "CHARACTERS",
        "PROMPT",
        "TOKENS",
        "COMPLETION",
        "TOKENS",
    ]
    assert lines[2].split() == [day, "summarize", "1", "400", "900", "120"]
    assert lines[3].split() == [day, "translate", "1", "150", "0", "0"]
    assert lines[6].split() == ["total", "all", "2", "550", "900", "120"]
    assert "monthly quota: 550 of 1000 characters used this month" in lines[7]
    code, out, _ = run(capsys, "usage", "o1", "--from", day, "--to", day, "--json")
    shown = json.loads(out)
    assert shown["from"] == shown["to"] == day
    assert shown["totals"]["charactersSummarized"] == 400
    assert shown["days"][1] == {
        "date": day,
        "operation": "translate",
        "requests": 1,
        "characters": 150,
        "promptTokens": 0,
        "completionTokens": 0,
    }
    assert shown["quota"]["monthlyCharacters"] == 1000

    code, out, _ = run(capsys, "organizations", "set", "o1", "--monthly-characters", "none")
    assert code == 0 and "monthly characters    no quota" in out
    code, out, _ = run(capsys, "usage", "o1", "--json")
    assert json.loads(out)["quota"] is None
    code, _, err = run(capsys, "usage", "o1", "--from", "2026-11-10", "--to", "2026-11-01")
    assert code == 2 and "'to' (2026-11-01) is before 'from' (2026-11-10)" in err
    code, _, err = run(capsys, "usage", "o1", "--tenant", "nobody")
    assert code == 2 and "There is no tenant 'nobody'" in err
    with pytest.raises(SystemExit):
        main(["organizations", "set", "o1", "--monthly-characters", "-5"])
    assert "a number of characters (0 or 'none': no quota), got '-5'" in capsys.readouterr().err


def test_glossaries(
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0  # the default tenant
    entries = tmp_path / "entries.csv"
    entries.write_text('ticket,incidencia\n\n"Smith, Inc.",Smith Inc.\nOptave,Optave,true\n')
    create = ["glossaries", "create", "o1", "--name", "Support", "--from", "en", "--to", "es-ES"]
    code, out, _ = run(capsys, *create, "--entries", str(entries), "--default", "--json")
    assert code == 0
    created = json.loads(out)
    glossary_id = created.pop("glossary_id")
    assert created == {
        "organization_id": "o1",
        "name": "Support",
        "source_language": "en",
        "target_language": "es",
        "default": True,
        "entry_count": 3,
        "entries": [
            {"source": "ticket", "target": "incidencia", "case_sensitive": False},
            {"source": "Smith, Inc.", "target": "Smith Inc.", "case_sensitive": False},
            {"source": "Optave", "target": "Optave", "case_sensitive": True},
        ],
    }
    monkeypatch.setattr("sys.stdin", io.StringIO("billing\tfacturation\tno\n"))
    french = ["glossaries", "create", "o1", "--name", "Billing", "--from", "en", "--to", "fr"]
    code, out, _ = run(capsys, *french, "--entries", "-")
    assert code == 0 and "Billing, en → fr" in out and "billing  facturation  any" in out

    code, out, _ = run(capsys, "glossaries", "list", "o1")
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert rows[0] == ["GLOSSARY", "ID", "FROM", "TO", "DEFAULT", "ENTRIES", "NAME"]
    assert rows[2] == [glossary_id, "en", "es", "yes", "3", "Support"]
    code, out, _ = run(capsys, "glossaries", "list", "o1", "--json")
    assert [g["name"] for g in json.loads(out)] == ["Billing", "Support"]
    assert "entries" not in json.loads(out)[0]
    code, out, _ = run(capsys, "glossaries", "show", "o1", glossary_id, "--json")
    assert code == 0 and json.loads(out) == {**created, "glossary_id": glossary_id}
    code, out, _ = run(capsys, "glossaries", "show", "o1", glossary_id)
    assert "Support, en → es (the default)" in out and "Smith, Inc.  Smith Inc.  any" in out

    code, out, _ = run(capsys, "glossaries", "delete", "o1", glossary_id)
    assert code == 0 and f"deleted glossary {glossary_id}" in out
    for command in ("show", "delete"):
        code, _, err = run(capsys, "glossaries", command, "o1", glossary_id)
        assert code == 1 and f"no glossary '{glossary_id}'" in err
    code, out, _ = run(capsys, "glossaries", "list", "o1", "--tenant", "default")
    assert [line.split()[-1] for line in out.splitlines()] == ["NAME", "Billing"]


def test_do_not_translate_terms(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "clients", "create", "--org", "o1")[0] == 0
    assert "no do-not-translate terms" in run(capsys, "dnt", "list", "o1")[1]
    terms = tmp_path / "terms.tsv"
    terms.write_text("Optave\ttrue\nacme\n")
    code, out, _ = run(capsys, "dnt", "set", "o1", "--terms", str(terms))
    assert code == 0 and "organization o1 has 2 do-not-translate terms" in out
    assert run(capsys, "dnt", "list", "o1")[1] == "acme\nOptave  (case-sensitive)\n"
    code, out, _ = run(capsys, "dnt", "list", "o1", "--json")
    assert json.loads(out) == [
        {"term": "acme", "case_sensitive": False},
        {"term": "Optave", "case_sensitive": True},
    ]
    terms.write_text("")
    assert run(capsys, "dnt", "set", "o1", "--terms", str(terms))[0] == 0
    assert run(capsys, "dnt", "list", "o1", "--json")[1].strip() == "[]"


def test_glossary_mistakes(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = tmp_path / "entries.csv"
    entries.write_text("ticket,incidencia\n")
    create = ["glossaries", "create", "o1", "--tenant", "acme", "--name", "G", "--entries"]
    code, _, err = run(capsys, *create, str(entries), "--from", "en", "--to", "es")
    assert code == 2 and "There is no tenant 'acme'" in err
    assert run(capsys, "clients", "create", "--org", "o1", "--tenant", "acme")[0] == 0
    code, _, err = run(capsys, *create, str(entries), "--from", "en", "--to", "tlh")
    assert code == 2 and "target language is one of en, es, fr, de, pt" in err
    entries.write_text("ticket,incidencia\nrefund\n")
    code, _, err = run(capsys, *create, str(entries), "--from", "en", "--to", "es")
    assert code == 2 and "Line 2 of" in err and "1 comma-separated fields" in err
    entries.write_text("ticket,incidencia,maybe\n")
    code, _, err = run(capsys, *create, str(entries), "--from", "en", "--to", "es")
    assert code == 2 and "case_sensitive is true or false" in err and "'maybe'" in err
    code, _, err = run(capsys, *create, str(tmp_path / "none.csv"), "--from", "en", "--to", "es")
    assert code == 2 and "Cannot read" in err
    code, _, err = run(capsys, "dnt", "set", "o1", "--tenant", "acme", "--terms", str(entries))
    assert code == 2 and "3 comma-separated fields; give term[,case_sensitive] lines" in err
    code, _, err = run(capsys, "glossaries", "show", "o1", "--tenant", "acme", "nope")
    assert code == 1 and "no glossary 'nope'" in err and "glossaries list ORG" in err
    assert run(capsys, "glossaries", "list", "o1", "--tenant", "acme")[1].startswith(
        "organization o1 has no glossaries"
    )


def test_keys_rotate(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from threadwise.auth.keys import load_key_ring

    settings = Settings(data_dir=data_dir)
    before = load_key_ring(settings).current.kid
    code, out, _ = run(capsys, "keys", "rotate")
    assert code == 0
    after = load_key_ring(settings)
    assert after.current.kid != before and after.current.kid in out
    assert after.find(before) is not None


def test_keys_rotate_refuses_a_configured_secret(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADWISE_JWT_SECRET", "a configured secret that is long enough!")
    code, _, err = run(capsys, "keys", "rotate")
    assert code == 2 and "THREADWISE_JWT_RETIRED_KEYS" in err


def test_migrate_brings_the_schema_to_the_newest_revision(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine

    from threadwise.db.migrate import alembic_config

    newest = ScriptDirectory.from_config(alembic_config()).get_current_head()
    for _ in range(2):  # the second time there is nothing to do
        code, _, err = run(capsys, "migrate")
        assert code == 0 and "up to date" in err
        engine = create_engine(f"sqlite:///{data_dir / 'threadwise.db'}")
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == newest
        engine.dispose()


def test_production_refuses_to_serve_without_a_secret(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADWISE_PRODUCTION", "true")
    code, _, err = run(capsys, "serve")
    assert code == 2 and "THREADWISE_JWT_SECRET" in err


# --- a new user's first run, end to end --------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`threadwise serve` on a fresh data directory; yields what it printed before serving."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Generous: the machine may be busy; what is tested is the flow, not the model's speed.
    env = {
        **os.environ,
        "THREADWISE_DATA_DIR": str(tmp_path),
        "THREADWISE_REQUEST_TIMEOUT_SECONDS": "600",
    }
    model = Settings().model_dir / DEFAULT_MODEL.filename
    if model.is_file():
        env["THREADWISE_LLM_MODEL_PATH"] = str(model)
    server = subprocess.Popen(
        [sys.executable, "-m", "threadwise.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert server.stdout is not None
    printed: list[str] = []
    deadline = time.monotonic() + 120
    for line in server.stdout:
        printed.append(line)
        # uvicorn binds its socket after the application's start-up: this line comes last.
        if "Uvicorn running on" in line or time.monotonic() > deadline:
            break
    try:
        yield "".join(printed), server
    finally:
        server.terminate()
        server.communicate(timeout=30)


@pytest.mark.model
def test_the_printed_curl_gets_a_summary(served: tuple[str, subprocess.Popen[str]]) -> None:
    printed, _ = served
    assert "client_secret  tws_" in printed, printed
    commands = [line for line in printed.splitlines() if line.startswith(("TOKEN=", "curl "))]
    assert len(commands) == 2, printed
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + "\n".join(commands)],
        capture_output=True,
        text=True,
        timeout=660,
    )
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert envelope["state"] == "completed", envelope
    assert envelope["requestId"] == "r-42"  # the README's example request
    assert envelope["message"]["results"][0]["response"][0]["content"].strip()
    # Without the token, the same request is refused.
    without = subprocess.run(
        ["bash", "-c", commands[1].replace('-H "Authorization: Bearer $TOKEN" ', "")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(without.stdout)["error"]["code"] == "MISSING_TOKEN"


# --- translate (the real engines, fast tier: no model call) ------------------------------


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


def test_the_request_file_is_read_as_the_api_reads_it(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 1_000 + "]" * 1_000)
    assert main(["translate", str(path)]) == 2
    assert "nested more than 32 levels deep" in capsys.readouterr().err


TRANSLATE_EXAMPLE = Path(__file__).parent.parent / "examples" / "translate-request.json"


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
