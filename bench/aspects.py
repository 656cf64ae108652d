"""Benchmark: all summary aspects of a chat against its paragraph summary alone, same run.

    python -m bench.aspects [--language en] [--repeat 1]

Issue 15's target: a request for every aspect of a 10-message chat takes at most 1.3x the
paragraph summary alone. Each support chat of 9 to 11 messages (``bench/data``) is
summarized both ways through the summarize superpower (queue, pipeline, checks, translation)
on the real default model, in alternating order, each time from an engine holding only the
fixed system prompts (no saved state of the conversation). Prints each chat's two times,
tokens and ratio, then the median ratio and the ratio of the totals. Run it on a quiet
machine: two cores are easily oversubscribed.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import support_chats
from threadwise.config import Settings
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.prefix_states import PrefixStates
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.protocol import BUILT_IN_ASPECTS
from threadwise.services import Services, build_services

SIZES = range(9, 12)  # messages: "a 10-message chat"


def fresh(services: Services) -> None:
    """The engine as at start-up: the fixed system prompts read, no conversation saved."""
    engine = services.engine
    assert isinstance(engine, LlamaCppEngine)
    if engine.prefix_states is not None:
        engine.prefix_states = PrefixStates(engine.prefix_states.max_bytes)
    services.default_summarizer.warm()


async def timed(services: Services, body: dict[str, Any]) -> float:
    parsed = parse_message_body(body, PayloadLimits())
    fresh(services)  # the engine's queue is idle between requests
    started = time.perf_counter()
    await services.summarize(parsed)
    return time.perf_counter() - started


async def measure(
    services: Services, chats: list[dict[str, Any]], language: str, repeat: int
) -> list[tuple[str, float, float]]:
    rows: list[tuple[str, float, float]] = []
    for round_number in range(repeat):
        for number, chat in enumerate(chats):
            paragraph = copy.deepcopy(chat["body"])
            paragraph["session"]["channel"]["language"] = language
            # A thread of its own each time: nothing remembered from an earlier run.
            paragraph["request"]["connections"]["threadId"] = f"bench-{round_number}-{number}"
            aspects = copy.deepcopy(paragraph)
            aspects["request"]["settings"] = {"summaryAspects": list(BUILT_IN_ASPECTS)}
            order = [("p", paragraph), ("a", aspects)]
            if number % 2:
                order.reverse()
            times = {kind: await timed(services, body) for kind, body in order}
            rows.append((chat["id"], times["p"], times["a"]))
            print(
                f"{chat['id']}: paragraph {times['p']:.2f} s, all aspects {times['a']:.2f} s, "
                f"ratio {times['a'] / times['p']:.2f}",
                flush=True,
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", default="en", help="the summaries' language")
    parser.add_argument("--repeat", type=int, default=1, help="rounds over the chats")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        services = build_services(Settings(data_dir=Path(data_dir), result_cache_ttl_seconds=0))
        services.identifier.load()
        services.engine.load()
        chats = [
            c
            for c in support_chats()
            if len(c["body"]["request"]["scope"]["conversations"][0]["messages"]) in SIZES
        ]
        rows = asyncio.run(measure(services, chats, args.language, args.repeat))
        ratios = [a / p for _, p, a in rows]
        total = sum(a for _, _, a in rows) / sum(p for _, p, _ in rows)
        print(
            f"\n{len(rows)} chats ({args.language}): paragraph p50 "
            f"{statistics.median(p for _, p, _ in rows):.2f} s, all aspects p50 "
            f"{statistics.median(a for _, _, a in rows):.2f} s; ratio median "
            f"{statistics.median(ratios):.2f}x, of totals {total:.2f}x "
            f"(target <= 1.30x); max {max(ratios):.2f}x"
        )
        services.close()


if __name__ == "__main__":
    main()
