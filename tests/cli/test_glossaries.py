"""`threadwise glossaries` and `threadwise dnt`: glossaries and do-not-translate terms from
CSV and TSV files; `--json` prints what the REST API answers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.cli.conftest import run


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
    glossary_id = created.pop("glossaryId")
    assert created == {  # as POST /glossaries answers
        "organizationId": "o1",
        "name": "Support",
        "sourceLanguage": "en",
        "targetLanguage": "es",
        "default": True,
        "entryCount": 3,
        "entries": [
            {"source": "ticket", "target": "incidencia", "caseSensitive": False},
            {"source": "Smith, Inc.", "target": "Smith Inc.", "caseSensitive": False},
            {"source": "Optave", "target": "Optave", "caseSensitive": True},
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
    listed = json.loads(out)["glossaries"]  # as GET /glossaries answers
    assert [g["name"] for g in listed] == ["Billing", "Support"]
    assert "entries" not in listed[0] and listed[1]["entryCount"] == 3
    code, out, _ = run(capsys, "glossaries", "show", "o1", glossary_id, "--json")
    assert code == 0 and json.loads(out) == {**created, "glossaryId": glossary_id}
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
    assert json.loads(out) == {  # as GET /glossaries/do-not-translate answers
        "terms": [
            {"term": "acme", "caseSensitive": False},
            {"term": "Optave", "caseSensitive": True},
        ]
    }
    terms.write_text("")
    assert run(capsys, "dnt", "set", "o1", "--terms", str(terms))[0] == 0
    assert json.loads(run(capsys, "dnt", "list", "o1", "--json")[1]) == {"terms": []}


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
