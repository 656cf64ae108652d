"""Cluster benchmark: threadwise replicas behind HAProxy on loopback (scripts/cluster.py), one
model server shared by them.

    scripts/with-services.sh .venv/bin/python -m bench.cluster [--model default|small]
        [--multiple 5] [--step-seconds 90] [--throughput-seconds 15] [--connections 16]

(``make bench-cluster`` runs it with the defaults.) In one run, with two replicas:

1. **Fast-tier throughput**, two replicas against one (the other taken out of the balancer
   through HAProxy's admin socket, so the rest is the same), in turn (2, 1, 2, 1, 2): short
   translations, each unique, from ``wrk`` (Debian's; installed here when missing, as root)
   with a fixed number of connections, which keeps the load generator's share of the two
   cores small. eng→spa (Apertium) and the load benchmark's mix (half eng→por, Bergamot).
2. **The load benchmark's mix at 5 x capacity** (bench/load.py: short translations, short and
   long summaries, REST and WebSocket in turn, every request with an idempotency key):
   every request must get exactly one answer of its own; refusals (503 OVERLOADED) are
   answers, a request with none is lost.
3. **The same with one replica stopped by SIGTERM** a third of the way in: its sockets close
   once their requests are answered, its queued summaries are handed back (503, which the
   balancer retries elsewhere), and the client does what the official client's users do:
   opens a new socket, and sends a request refused with a retryable error again with its key.
   Zero lost, none answered twice.

Capacity is the model server's (one for the whole cluster): 1 / mean summary time, measured
here as bench/load.py does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.load import (
    ORGANIZATION,
    Answer,
    Kind,
    Level,
    Transport,
    capacity_of,
    make_transport,
    repeated_problems,
    report,
    summary_seconds,
    workload,
)
from scripts.cluster import Cluster, running_cluster

THROUGHPUT_TARGET = 1.5
# A retryable answer is sent again after this (or its Retry-After, if shorter), up to this.
RETRY_PAUSE_SECONDS = 1.0
GIVE_UP_SECONDS = 900.0
WRK_SCRIPT = Path(__file__).with_name("wrk_translations.lua")


# --- a client that retries with its idempotency key --------------------------------------------


@dataclass
class Outcome:
    """A request's attempts, the last one its answer."""

    kind: str
    attempts: list[Answer] = field(default_factory=list)

    @property
    def answer(self) -> Answer:
        return self.attempts[-1]


def retryable(answer: Answer, refusals: bool) -> bool:
    """No answer (a connection that closed), or an error that says to retry: 502/504 from the
    balancer always (the request may have run: its key keeps it to one answer), 503
    OVERLOADED when ``refusals`` (a client that waits out Retry-After and sends it again)."""
    if answer.status is None:
        return True
    if answer.status in (502, 504) and answer.retry_after:
        return True
    return refusals and answer.status == 503 and answer.retry_after is not None


async def answered(
    transport: Transport,
    kind: str,
    operation: str,
    body: dict[str, Any],
    *,
    refusals: bool = False,
    give_up_seconds: float = GIVE_UP_SECONDS,
) -> Outcome:
    """Send ``body`` with a fresh idempotency key, again with the same key while the answer
    says to retry (``retryable``), until ``give_up_seconds``."""
    key = uuid.uuid4().hex
    outcome = Outcome(kind)
    give_up = time.monotonic() + give_up_seconds
    while True:
        answer = await transport.send(kind, operation, body, key)
        outcome.attempts.append(answer)
        if not retryable(answer, refusals) or time.monotonic() > give_up:
            return outcome
        await asyncio.sleep(RETRY_PAUSE_SECONDS * random.uniform(0.5, 1.5))


# --- the mix at a multiple of capacity ---------------------------------------------------------


async def offer_with_keys(
    transport: Transport,
    kinds: Sequence[Kind],
    rate: float,
    seconds: float,
    rng: random.Random,
    *,
    refusals: bool,
    during: Any = None,
) -> list[Outcome]:
    """Poisson arrivals at ``rate`` for ``seconds``, each through ``answered``; ``during``,
    if given, is awaited a third of the way in (a replica stopped mid-run)."""
    tasks: list[asyncio.Task[Outcome]] = []
    weights = [k.weight for k in kinds]
    started = time.perf_counter()
    next_at = started
    event: asyncio.Task[None] | None = None
    while True:
        next_at += rng.expovariate(rate)
        if next_at - started > seconds:
            break
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        if during is not None and event is None and next_at - started > seconds / 3:
            event = asyncio.ensure_future(during())
        [kind] = rng.choices(kinds, weights)
        body = kind.make(rng)
        tasks.append(
            asyncio.ensure_future(
                answered(transport, kind.name, kind.operation, body, refusals=refusals)
            )
        )
    outcomes = list(await asyncio.gather(*tasks))
    if event is not None:
        await event
    return outcomes


def tally(outcomes: Sequence[Outcome], multiple: float, seconds: float, label: str) -> list[str]:
    """Print the run's figures (bench/load.py's report, on final answers, plus retries)."""
    level = Level(multiple, len(outcomes) / max(seconds, 1e-9))
    level.sent = len(outcomes)
    level.seconds = seconds
    level.answers = [o.answer for o in outcomes]
    print(f"\n== {label}", flush=True)
    problems = [f"{label}: {p}" for p in report(level)]
    retried = [o for o in outcomes if len(o.attempts) > 1]
    why = Counter(
        f"{a.status or 'no answer'} {a.code if a.status else ''}".strip()
        for o in retried
        for a in o.attempts[:-1]
    )
    print(
        f"  sent again with their keys: {len(retried)} requests "
        f"({', '.join(f'{n} x {w}' for w, n in why.most_common()) or 'none'})"
    )
    return problems


# --- throughput ------------------------------------------------------------------------------


def wrk_binary() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing Debian's wrk", flush=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"],
            check=True,
            capture_output=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        found = shutil.which("wrk")
    if not found:
        raise RuntimeError("wrk is missing: install Debian's (apt-get install wrk)")
    return found


@dataclass(frozen=True)
class Throughput:
    requests_per_second: float
    failed: int


def throughput(url: str, token: str, target: str, seconds: float, connections: int) -> Throughput:
    """Closed-loop short translations from wrk: requests a second, and non-200 answers."""
    finished = subprocess.run(
        [wrk_binary(), "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s",
         "-s", str(WRK_SCRIPT), url],
        env={**os.environ, "TOKEN": token, "TARGET": target, "ORGANIZATION": ORGANIZATION},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rate = re.search(r"Requests/sec:\s+([\d.]+)", finished.stdout)
    if rate is None:
        raise RuntimeError(f"wrk said:\n{finished.stdout}\n{finished.stderr}")
    failed = re.search(r"Non-2xx or 3xx responses: (\d+)", finished.stdout)
    errors = re.search(r"Socket errors: (.*)", finished.stdout)
    if errors:
        print(f"  wrk socket errors: {errors[1]}")
    return Throughput(float(rate[1]), int(failed[1]) if failed else 0)


def compare_throughput(cluster: Cluster, token: str, args: argparse.Namespace) -> list[str]:
    """Two replicas, one, two, one, two…: the medians of each, as a ratio."""
    problems = []
    second = cluster.replicas[1].name
    for target, label in (("es-ES", "eng→spa (Apertium)"), ("mix", "eng→spa + eng→por mix")):
        throughput(cluster.url, token, target, 3, args.connections)  # warm
        runs: dict[int, list[Throughput]] = {2: [], 1: []}
        for replicas in [2, 1] * args.rounds + [2]:
            if replicas == 1:
                cluster.balancer(f"disable server replicas/{second}")
                time.sleep(0.5)
            runs[replicas].append(
                throughput(cluster.url, token, target, args.throughput_seconds, args.connections)
            )
            if replicas == 1:
                cluster.balancer(f"enable server replicas/{second}")
                cluster.wait_balanced()
        two, one = (statistics.median(r.requests_per_second for r in runs[n]) for n in (2, 1))
        failed = sum(r.failed for rs in runs.values() for r in rs)
        ratio = two / one
        print(
            f"fast tier, {label}, {args.connections} connections: 1 replica {one:.0f}/s "
            f"({_rates(runs[1])}), 2 replicas {two:.0f}/s ({_rates(runs[2])}): {ratio:.2f}x "
            f"(target ≥ {THROUGHPUT_TARGET}); non-200 answers {failed}",
            flush=True,
        )
        if failed:
            problems.append(f"{label}: {failed} translations not answered 200")
        if target == "es-ES" and ratio < THROUGHPUT_TARGET:
            problems.append(f"fast-tier throughput, {label}: {ratio:.2f}x one replica")
    return problems


def _rates(runs: Sequence[Throughput]) -> str:
    return ", ".join(f"{r.requests_per_second:.0f}" for r in runs)


# --- the run ---------------------------------------------------------------------------------


async def load_runs(cluster: Cluster, token: str, args: argparse.Namespace) -> list[str]:
    rng = random.Random(args.seed)
    kinds = workload(long_summaries=not args.short_only)
    transport = make_transport("both", cluster.url, token)
    problems: list[str] = []
    try:
        capacity = args.capacity or capacity_of(kinds, await summary_seconds(transport, kinds, rng))
        rate = args.multiple * capacity
        print(f"capacity: {capacity:.2f} requests/s of the mix; offering {rate:.2f}/s", flush=True)

        began = time.perf_counter()
        outcomes = await offer_with_keys(
            transport, kinds, rate, args.step_seconds, rng, refusals=False
        )
        problems += tally(
            outcomes, args.multiple, time.perf_counter() - began,
            f"{args.multiple:g}x capacity, 2 replicas",
        )  # fmt: skip

        stopped = cluster.replicas[0]
        status: list[int | None] = []

        async def sigterm() -> None:
            print(f"  SIGTERM to replica {stopped.name}", flush=True)
            status.append(await asyncio.to_thread(stopped.stop, 300.0))

        began = time.perf_counter()
        outcomes = await offer_with_keys(
            transport, kinds, rate, args.step_seconds, rng, refusals=True, during=sigterm
        )
        label = f"{args.multiple:g}x capacity, replica {stopped.name} SIGTERMed a third in"
        problems += tally(outcomes, args.multiple, time.perf_counter() - began, label)
        print(f"  {stopped.name} exited with status {status[0] if status else '?'}")
        if status != [0]:
            problems.append(f"{stopped.name} exited with {status} after SIGTERM, not 0")
        refused = [o for o in outcomes if o.answer.status != 200]
        if refused:
            problems.append(f"{label}: {len(refused)} requests without a 200 after retries")
    finally:
        await transport.close()
    return problems + repeated_problems(transport)


def bench(argv: Sequence[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["default", "small"], default="default")
    parser.add_argument("--multiple", type=float, default=5.0, help="of capacity")
    parser.add_argument(
        "--step-seconds", type=float, default=90.0,
        help="arrivals per run (long enough that the model's queues fill)",
    )  # fmt: skip
    parser.add_argument("--capacity", type=float, help="requests/s of the mix (skip measuring)")
    parser.add_argument("--short-only", action="store_true", help="no long summaries")
    parser.add_argument("--throughput-seconds", type=float, default=15.0)
    parser.add_argument("--connections", type=int, default=16, help="wrk's")
    parser.add_argument("--rounds", type=int, default=2, help="of one replica between two")
    parser.add_argument("--skip", choices=["throughput", "load"], action="append", default=[])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    state = Path(tempfile.mkdtemp(prefix="threadwise-bench-cluster-"))
    problems: list[str] = []
    settings = {
        # Long enough for the summaries a stopped replica runs when SIGTERM comes.
        "THREADWISE_SHUTDOWN_GRACE_SECONDS": "300",
        # Every request is new work (no result cache): the replicas do what they are asked.
        "THREADWISE_RESULT_CACHE_TTL_SECONDS": "0",
    }
    try:
        with running_cluster(state, model=args.model, settings=settings) as cluster:
            client = cluster.create_client(ORGANIZATION)
            token = cluster.token(client)
            print(
                f"cluster: {len(cluster.replicas)} replicas behind {cluster.url}, model server "
                f"{cluster.model_url} ({args.model} model); nothing else should run beside it",
                flush=True,
            )
            if "throughput" not in args.skip:
                problems += compare_throughput(cluster, token, args)
            if "load" not in args.skip:
                problems += asyncio.run(load_runs(cluster, token, args))
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    problems = bench(argv)
    print("\n" + ("targets met" if not problems else "targets missed:\n  " + "\n  ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(main())
