"""What the benchmarks share: their support chats, a percentile, and loaded services."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from threadwise.config import Settings
from threadwise.services import Services, build_services

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


@contextmanager
def loaded_services(**settings: Any) -> Iterator[Services]:
    """Services with the real engines loaded, in a data directory of their own, the result
    cache off; ``settings`` as ``Settings`` takes them."""
    with tempfile.TemporaryDirectory() as data_dir:
        services = build_services(
            Settings(data_dir=Path(data_dir), result_cache_ttl_seconds=0, **settings)
        )
        services.start()
        loaded = services.wait_loaded(300)
        if services.load_error is not None:
            raise services.load_error
        assert loaded, "the engines did not load in 300 s"
        try:
            yield services
        finally:
            services.close()
