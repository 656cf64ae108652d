"""What was measured of each translation direction, and the quality label it earned.

``translation_routes.json`` (beside this module) is written by ``bench/translate.py
--write-table`` from chrF on NTREX-128: per direction its engines and figures, and per
language the labels of its directions to and from English. A direction's label comes from
its best engine's chrF against the table's thresholds:

- ``good``: at least the level of the directions served from the start (the best engine of
  en↔es, en↔pt, es/fr/de→en measures 48 to 64);
- ``usable``: the meaning of most sentences comes through, with grammar and word errors;
- ``experimental``: the gist at best; served only to organizations whose policy allows it;
- below the lowest threshold: not served.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Literal

Label = Literal["good", "usable", "experimental"]
# Best first.
LABELS: tuple[Label, ...] = ("good", "usable", "experimental")
TABLE_FILE = "translation_routes.json"
# Served to every organization; the others only where a policy allows experimental languages.
SERVED_TO_ALL: frozenset[Label] = frozenset({"good", "usable"})


def label_of(chrf: float | None, thresholds: Mapping[Label, float]) -> Label | None:
    """The best label whose threshold ``chrf`` reaches; None below them all (or unmeasured)."""
    if chrf is None:
        return None
    return next((label for label in LABELS if chrf >= thresholds[label]), None)


def lower(first: Label | None, second: Label | None) -> Label | None:
    """The worse of two labels (None, unserved, is the worst)."""
    if first is None or second is None:
        return None
    return max(first, second, key=LABELS.index)


@dataclass(frozen=True)
class LanguageLabels:
    """A language's directions to and from English: each one's label and chrF."""

    into: Label | None  # English → the language
    into_chrf: float | None
    out: Label | None  # the language → English
    out_chrf: float | None

    @property
    def served(self) -> bool:
        return self.into is not None or self.out is not None


def load_table() -> dict[str, Any]:
    path = files("threadwise.text").joinpath(TABLE_FILE)
    if not path.is_file():
        return {}
    table: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return table


def language_labels(table: Mapping[str, Any]) -> dict[str, LanguageLabels]:
    """Each language's labels as the table's ``languages`` section gives them."""
    return {
        code: LanguageLabels(
            entry.get("into"), entry.get("intoChrF"), entry.get("from"), entry.get("fromChrF")
        )
        for code, entry in table.get("languages", {}).items()
    }


TABLE = load_table()
THRESHOLDS: dict[Label, float] = TABLE.get("labels", {}).get("thresholds", {})
MEASURED: dict[str, LanguageLabels] = language_labels(TABLE)
