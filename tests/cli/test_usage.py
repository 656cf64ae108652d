"""`threadwise usage`: what an organization used, and its monthly quota."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.cli.conftest import run
from threadwise.cli import main
from threadwise.db.database import Database
from threadwise.organizations.usage import UsageStore


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
