"""What the benchmarks share: their support chats and a percentile."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def support_chats() -> list[dict[str, Any]]:
    """``bench/data/support_chats.jsonl``: id, request body, checklist, key facts."""
    return [json.loads(line) for line in (DATA / "support_chats.jsonl").read_text().splitlines()]


def support_chat_bodies() -> list[dict[str, Any]]:
    return [chat["body"] for chat in support_chats()]


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile; NaN when there are no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
