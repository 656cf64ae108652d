"""What commands print: progress on standard error, aligned tables, and JSON; a document the
REST API also answers is printed as it writes it (camelCase)."""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import BaseModel


def progress(message: str) -> None:
    print(f"threadwise: {message}", file=sys.stderr, flush=True)


def print_table(rows: list[list[str]]) -> None:
    """``rows`` (the first: the headings) in aligned columns."""
    widths = [max(len(cell) for cell in column) for column in zip(*rows, strict=True)]
    for row in rows:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        print(line.rstrip())


def print_json(value: BaseModel | Any) -> None:
    """``value`` as indented JSON; a model as the REST API writes it (its aliases: ``from``)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    print(json.dumps(value, ensure_ascii=False, indent=2))
