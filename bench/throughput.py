"""Benchmark: summaries per minute from one machine, with continuous batching and without;
and the fast tier's messages a second against Debian's apertium-apy.

    python -m bench.throughput [--seconds 60] [--levels 1,2,4,8] [--batching 4]
                               [--messages 10] [--modes off,on]
    python -m bench.throughput --fast [--connections 8] [--fast-seconds 10] [--rounds 3]

For each mode (``THREADWISE_LLM_BATCHING`` 0, then ``--batching``) the service is built with
the real engines, in a process of its own; at each level, that many clients each send support chats
(bench/data/support_chats.jsonl, their first ``--messages`` messages, a different chat each
time and no result cache) through the summarize superpower back to back for ``--seconds``.
Printed per mode and level: summaries completed in the window, per minute, p50/p95 latency;
then, per level, batching's summaries per minute against batching off's, and its p50 against
a lone request's (level 1, batching off). Targets (issue 31): at 4 clients >= 1.8x the
summaries per minute with p50 <= 2.5x a lone request's; at 1 client <= 1.05x its latency.

``--fast``: ``threadwise serve`` and ``apertium-apy`` (``-j 1``, as Debian runs it), each in a
process of its own on 127.0.0.1, driven in turn by ``wrk`` (Debian's; installed when
missing) with the same number of connections, each request one unique short eng→spa message
(bench/wrk_translations.lua, bench/wrk_apy.lua); rounds alternate, so other load weighs on
both alike. Printed: messages a second and p99 latency of each, and the ratio (targets:
>= 3x APy's messages a second, p99 <= 50 ms).

Run it on a quiet machine: two cores are easily oversubscribed.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import itertools
import multiprocessing
import os
import re
import statistics
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench.common import loaded_services, percentile, support_chats
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.services import Services


def bodies(messages: int) -> list[dict[str, Any]]:
    """Each support chat cut to its first ``messages`` messages."""
    cut = []
    for chat in support_chats():
        body = copy.deepcopy(chat["body"])
        conversation = body["request"]["scope"]["conversations"][0]
        conversation["messages"] = conversation["messages"][:messages]
        cut.append(body)
    return cut


async def level(
    services: Services, clients: int, seconds: float, chats: list[dict[str, Any]]
) -> tuple[int, list[float]]:
    """Summaries completed within ``seconds`` by ``clients`` sending back to back, and the
    latency of each (those still running at the end are waited for, not counted)."""
    turn = itertools.count()
    latencies: list[float] = []
    end = time.perf_counter() + seconds

    async def client() -> None:
        while time.perf_counter() < end:
            body = copy.deepcopy(chats[next(turn) % len(chats)])
            parsed = parse_message_body(body, PayloadLimits())
            started = time.perf_counter()
            await services.summarize(parsed)
            if time.perf_counter() <= end:
                latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(client() for _ in range(clients)))
    return len(latencies), latencies


def run_mode(
    batching: int, levels: list[int], seconds: float, chats: list[dict[str, Any]]
) -> dict[int, tuple[float, float, float]]:
    """Per level: summaries per minute, p50 and p95 seconds."""
    figures: dict[int, tuple[float, float, float]] = {}
    with loaded_services(llm_batching=batching) as services:
        services.default_summarizer.warm()
        asyncio.run(level(services, 1, 1.0, chats))  # the first call's set-up out of the way
        for clients in levels:
            done, latencies = asyncio.run(level(services, clients, seconds, chats))
            per_minute = 60 * done / seconds
            p50 = statistics.median(latencies) if latencies else float("nan")
            p95 = percentile(latencies, 0.95)
            figures[clients] = (per_minute, p50, p95)
            print(
                f"batching {batching}: {clients} clients: {done} summaries in {seconds:.0f} s, "
                f"{per_minute:.1f}/min, p50 {p50:.2f} s, p95 {p95:.2f} s",
                flush=True,
            )
    return figures


WRK_THREADWISE = Path(__file__).with_name("wrk_translations.lua")
WRK_APY = Path(__file__).with_name("wrk_apy.lua")


def wrk(
    url: str, script: Path, seconds: float, connections: int, env: dict[str, str]
) -> tuple[float, float, int]:
    """Messages a second, p99 milliseconds, and answers that were not 200."""
    from bench.cluster import wrk_binary

    finished = subprocess.run(
        [wrk_binary(), "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s",
         "--latency", "-s", str(script), url],
        env={**os.environ, **env}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rate = re.search(r"Requests/sec:\s+([\d.]+)", finished.stdout)
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)", finished.stdout, re.M)
    if rate is None or p99 is None:
        raise RuntimeError(f"wrk said:\n{finished.stdout}\n{finished.stderr}")
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99[2]]
    failed = re.search(r"Non-2xx or 3xx responses: (\d+)", finished.stdout)
    return float(rate[1]), float(p99[1]) * scale, int(failed[1]) if failed else 0


def fast_tier(connections: int, seconds: float, rounds: int) -> None:
    """threadwise's fast tier against apertium-apy on eng→spa, by wrk, rounds in turn."""
    from bench.translate import apertium_apy, threadwise_serve

    with threadwise_serve() as (port, token), apertium_apy() as apy_port:
        ours_env = {"TOKEN": token, "TARGET": "es-ES", "ORGANIZATION": "bench"}
        ours_url, apy_url = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{apy_port}"
        wrk(ours_url, WRK_THREADWISE, 2, connections, ours_env)  # warm both
        wrk(apy_url, WRK_APY, 2, connections, {})
        ours: list[tuple[float, float, int]] = []
        apy: list[tuple[float, float, int]] = []
        for _ in range(rounds):
            ours.append(wrk(ours_url, WRK_THREADWISE, seconds, connections, ours_env))
            apy.append(wrk(apy_url, WRK_APY, seconds, connections, {}))
            (rate, p99, failed), (apy_rate, apy_p99, apy_failed) = ours[-1], apy[-1]
            print(
                f"threadwise {rate:7.1f}/s p99 {p99:6.1f} ms ({failed} not 200); "
                f"apertium-apy {apy_rate:7.1f}/s p99 {apy_p99:6.1f} ms ({apy_failed} not 200)",
                flush=True,
            )
    rate = statistics.median(r for r, _, _ in ours)
    apy_rate = statistics.median(r for r, _, _ in apy)
    p99 = statistics.median(p for _, p, _ in ours)
    print(
        f"\nmedians, {connections} connections: threadwise {rate:.1f} messages/s (p99 "
        f"{p99:.1f} ms), apertium-apy {apy_rate:.1f}/s: {rate / apy_rate:.2f}x (target >= 3x, "
        "p99 <= 50 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="window per level")
    parser.add_argument("--levels", default="1,2,4,8", help="concurrent clients")
    parser.add_argument("--batching", type=int, default=4, help="THREADWISE_LLM_BATCHING when on")
    parser.add_argument("--messages", type=int, default=10, help="messages of each chat")
    parser.add_argument("--modes", default="off,on")
    parser.add_argument("--fast", action="store_true", help="the fast tier against APy")
    parser.add_argument("--connections", type=int, default=8, help="wrk's, with --fast")
    parser.add_argument("--fast-seconds", type=float, default=10.0, help="a wrk run, with --fast")
    parser.add_argument("--rounds", type=int, default=3, help="wrk runs each, with --fast")
    args = parser.parse_args()
    if args.fast:
        fast_tier(args.connections, args.fast_seconds, args.rounds)
        return
    levels = [int(n) for n in args.levels.split(",")]
    chats = bodies(args.messages)
    modes = {"off": 0, "on": args.batching}
    results = {}
    for name in args.modes.split(","):
        # Each mode in a process of its own: a model left loaded by the other (its threads,
        # its memory) slowed the second one's generation by a third.
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            figures = pool.submit(run_mode, modes[name], levels, args.seconds, chats)
            results[name] = figures.result()
    if set(results) != {"off", "on"}:
        return
    off, on = results["off"], results["on"]
    lone = off[levels[0]][1] if levels[0] == 1 else float("nan")
    print(f"\nlone request (1 client, batching off): p50 {lone:.2f} s")
    print(f"{'clients':>7} {'per minute, on/off':>20} {'p50 on / lone':>15}")
    for clients in levels:
        ratio = on[clients][0] / off[clients][0] if off[clients][0] else float("nan")
        print(f"{clients:>7} {ratio:>19.2f}x {on[clients][1] / lone:>14.2f}x")


if __name__ == "__main__":
    main()
