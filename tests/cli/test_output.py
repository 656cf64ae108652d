"""What commands print: JSON as the REST API writes it, tables aligned."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from pydantic import BaseModel, ConfigDict, Field

from threadwise.cli.output import print_json, print_table


class Report(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    from_: dt.date = Field(alias="from")
    organizationId: str


def test_a_model_is_printed_by_its_aliases_as_the_api_writes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_json(Report(from_=dt.date(2026, 11, 1), organizationId="café"))
    out = capsys.readouterr().out
    assert json.loads(out) == {"from": "2026-11-01", "organizationId": "café"}
    assert "café" in out  # not \u00e9: read by people too


def test_a_table_is_aligned_without_trailing_spaces(capsys: pytest.CaptureFixture[str]) -> None:
    print_table([["ID", "NAME"], ["a-long-id", "x"], ["b", ""]])
    assert capsys.readouterr().out == "ID         NAME\na-long-id  x\nb\n"
