"""Jobs benchmark: asynchronous jobs on two replicas sharing PostgreSQL's queue, behind HAProxy
(scripts/cluster.py), one model server shared by them.

    scripts/with-services.sh .venv/bin/python -m bench.jobs [--translations 1000]
        [--summaries 20] [--concurrency 16] [--batch 50] [--model small|default]

(``make bench-jobs`` runs it with the defaults.) In one run:

1. **Idle**: synchronous short translations (fast tier) one after another through the balancer
   for ``--probe-seconds``: their p50 latency on an idle cluster (the probe).
2. **Synchronously**: ``--translations`` fast-tier translations (``--concurrency`` at a time)
   and ``--summaries`` summaries of support chats (all at once), sent to the balancer as
   synchronous requests: translations per second until the last one was answered.
3. **As jobs**: the same requests as jobs, submitted at once (``--concurrency`` submitters, the
   two replicas in turn, ``--batch`` jobs per ``POST /jobs/batch``, or with ``--batch 1`` a
   ``POST /jobs/{operation}`` each), each with a webhook to a receiver on loopback (HTTP/1.1,
   as receivers are: connections kept alive). Counted: when each
   job finished (its ``finishedAt``), every job's webhook (once per job, by ``webhook-id``),
   jobs ended per replica (``threadwise_jobs_ended_total``), and the items of completed jobs.
4. **The probe beside jobs**: ``--translations`` more translation jobs, and the probe of (1)
   while they run.

The model server runs at niceness ``--model-nice`` (10), as the embedded model's threads do by
default (THREADWISE_LLM_NICE): on two cores, fast work must not wait for the model's threads.
The replicas' job workers run at 5 (THREADWISE_JOBS_WORKER_NICE): after the requests, before
the model.

Targets (issue 29): all jobs complete, none lost or ended twice; the translations' throughput as
jobs within 10% of the same requests' synchronously (ratio >= 0.9); the probe's p50 while jobs
run within 1.5x of its idle p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy import select

from bench.common import cpu_by_program, cpu_used, support_chat_bodies
from bench.load import ORGANIZATION, short_translation, unique
from scripts.cluster import Cluster, _threadwise, running_cluster
from threadwise.db.database import Database
from threadwise.db.tables import Job

METRICS_TOKEN = "bench-jobs-metrics"


class Receiver:
    """Webhooks on loopback: when each job's first delivery came, by job id."""

    def __init__(self) -> None:
        self.ended: dict[str, tuple[float, str]] = {}  # job id: (arrival, status)
        self.deliveries = 0
        self.ids: set[str] = set()
        self.repeated = 0
        self.lock = threading.Lock()
        self.all_in = threading.Event()
        self.expected = 0

    def took(self, headers: dict[str, str], body: bytes) -> None:
        event = json.loads(body)
        with self.lock:
            self.deliveries += 1
            message_id = headers.get("webhook-id", "")
            if message_id in self.ids:
                self.repeated += 1
                return
            self.ids.add(message_id)
            self.ended[event["data"]["jobId"]] = (time.perf_counter(), event["data"]["status"])
            if len(self.ended) >= self.expected:
                self.all_in.set()


@contextmanager
def receiving() -> Iterator[tuple[Receiver, int]]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        # As a receiver in production is (any web framework's): connections kept alive.
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            receiver.took({k.lower(): v for k, v in self.headers.items()}, body)
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        # A batch's webhooks come side by side (16 at a time from each worker): the
        # default backlog of 5 would drop connections, and the retries would come seconds
        # later.
        request_queue_size = 128
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def probe(
    url: str, token: str, seconds: float, stop: asyncio.Event | None = None
) -> list[tuple[float, float]]:
    """Synchronous short translations one after another: when each was sent
    (``perf_counter``), and its latency."""
    rng = random.Random(11)
    latencies: list[tuple[float, float]] = []
    deadline = time.perf_counter() + seconds
    async with httpx2.AsyncClient(timeout=120) as http:
        while time.perf_counter() < deadline and not (stop is not None and stop.is_set()):
            started = time.perf_counter()
            answer = await http.post(
                f"{url}/message/translate", json=short_translation(rng), headers=_auth(token)
            )
            if answer.status_code == 200:
                latencies.append((started, time.perf_counter() - started))
    return latencies


async def synchronous(
    url: str,
    token: str,
    translations: list[dict[str, Any]],
    summaries: list[dict[str, Any]],
    concurrency: int,
) -> tuple[float, float, dict[str, float]]:
    """Send the requests synchronously (translations ``concurrency`` at a time, summaries all
    at once): seconds until the last translation was answered, and until everything was; the
    CPU used so far (``cpu_by_program``) when the last translation was answered."""
    pending = list(translations)
    failures: Counter[str] = Counter()  # the operation and error code of each failure
    last_translation = 0.0
    translating_now = concurrency
    cpu: dict[str, float] = {}

    async def translating(http: httpx2.AsyncClient) -> None:
        nonlocal last_translation, translating_now, cpu
        while pending:
            body = pending.pop()
            answer = await http.post(f"{url}/message/translate", json=body, headers=_auth(token))
            _count_failure(failures, "translate", answer)
            last_translation = time.perf_counter()
        translating_now -= 1
        if not translating_now:
            cpu = cpu_by_program()

    async def summarizing(http: httpx2.AsyncClient, body: dict[str, Any]) -> None:
        answer = await http.post(f"{url}/message/summarize", json=body, headers=_auth(token))
        _count_failure(failures, "summarize", answer)

    started = time.perf_counter()
    async with httpx2.AsyncClient(timeout=1800) as http:
        await asyncio.gather(
            *(translating(http) for _ in range(concurrency)),
            *(summarizing(http, body) for body in summaries),
        )
    if failures:
        print(f"  synchronous: requests not answered 200: {dict(failures)}", flush=True)
    return last_translation - started, time.perf_counter() - started, cpu


def _count_failure(failures: Counter[str], operation: str, answer: httpx2.Response) -> None:
    if answer.status_code != 200:
        try:
            code = answer.json()["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = str(answer.status_code)
        failures[f"{operation} {code}"] += 1


async def submit(
    cluster: Cluster,
    token: str,
    jobs: list[tuple[str, dict[str, Any]]],
    concurrency: int,
    batch: int = 1,
) -> tuple[dict[str, str], float]:
    """Submit ``jobs`` (operation, body), the replicas in turn, one request per job or (with
    ``batch`` > 1) so many per ``POST /jobs/batch``: job id → operation; and when the first
    submission went."""
    pending = list(enumerate(jobs))
    submitted: dict[str, str] = {}

    async def post(http: httpx2.AsyncClient, path: str, **sent: Any) -> httpx2.Response:
        # As a client should: a submission whose answer was lost is sent again with its
        # keys, and answered with the jobs it made.
        for attempt in range(3):
            try:
                return await http.post(path, **sent)
            except httpx2.TransportError as exc:
                print(f"  submission to {path}: {exc!r}, sent again", flush=True)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def worker(http: httpx2.AsyncClient) -> None:
        while pending:
            taken = pending[:batch]
            del pending[:batch]
            replica = cluster.replicas[taken[0][0] // batch % len(cluster.replicas)]
            if batch == 1:
                [(_, (operation, body))] = taken
                headers = _auth(token) | {"Idempotency-Key": f"bench-{uuid.uuid4().hex}"}
                answer = await post(
                    http, f"{replica.url}/jobs/{operation}", json=body, headers=headers
                )
                if answer.status_code != 202:
                    raise RuntimeError(f"refused: {answer.status_code} {answer.text[:300]}")
                submitted[answer.json()["jobId"]] = operation
                continue
            items = [
                {"operation": op, "idempotencyKey": f"bench-{uuid.uuid4().hex}", "body": body}
                for _, (op, body) in taken
            ]
            answer = await post(
                http, f"{replica.url}/jobs/batch", json={"jobs": items}, headers=_auth(token)
            )
            if answer.status_code != 200:
                raise RuntimeError(f"refused: {answer.status_code} {answer.text[:300]}")
            for item, (_, (operation, _)) in zip(answer.json()["jobs"], taken, strict=True):
                if item["status"] != 202:
                    raise RuntimeError(f"a job of a batch was refused: {item}")
                submitted[item["job"]["jobId"]] = operation

    started = time.perf_counter()
    async with httpx2.AsyncClient(timeout=120) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return submitted, started


async def finished_at(url: str, token: str) -> dict[str, datetime]:
    """When each completed job of the organization finished, read a page at a time."""
    finished: dict[str, datetime] = {}
    cursor: str | None = None
    async with httpx2.AsyncClient(timeout=60) as http:
        while True:
            params = {"organizationId": ORGANIZATION, "status": "completed", "limit": "100"}
            if cursor:
                params["cursor"] = cursor
            page = (await http.get(f"{url}/jobs", params=params, headers=_auth(token))).json()
            for job in page["jobs"]:
                finished[job["jobId"]] = datetime.fromisoformat(job["finishedAt"])
            cursor = page["nextCursor"]
            if cursor is None:
                return finished


async def started_between(url: str, token: str, jobs: set[str]) -> list[datetime]:
    """When each of ``jobs`` that has started started."""
    started: list[datetime] = []
    async with httpx2.AsyncClient(timeout=60) as http:
        for job_id in jobs:
            job = (await http.get(f"{url}/jobs/{job_id}", headers=_auth(token))).json()
            if job.get("startedAt"):
                started.append(datetime.fromisoformat(job["startedAt"]))
    return started


async def ended_all(
    url: str,
    token: str,
    receiver: Receiver,
    jobs: set[str],
    deadline: float,
    args: argparse.Namespace,
) -> None:
    """Until every job of ``jobs`` has had its webhook (without webhooks: is listed as
    completed, read every 2 s), or ``deadline`` (perf_counter)."""
    while time.perf_counter() < deadline:
        if args.webhooks:
            with receiver.lock:
                if jobs <= receiver.ended.keys():
                    return
            await asyncio.sleep(0.2)
        else:
            if jobs <= (await finished_at(url, token)).keys():
                return
            await asyncio.sleep(2.0)


def batch_sizes(database_url: str, job_ids: set[str]) -> list[int]:
    """How many of ``job_ids`` each of their batches held, read from the database."""
    database = Database(database_url)
    try:
        with database.session() as session:
            rows = session.execute(select(Job.job_id, Job.batch_id)).all()
    finally:
        database.close()
    return list(Counter(batch for job, batch in rows if job in job_ids).values())


def ended_counts(cluster: Cluster) -> dict[str, float]:
    counts: dict[str, float] = {}
    for replica in cluster.replicas:
        text = httpx2.get(f"{replica.url}/metrics", headers=_auth(METRICS_TOKEN), timeout=30).text
        counts[replica.name] = sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("threadwise_jobs_ended_total{")
        )
    return counts


def _print_cpu(what: str, used: dict[str, float], count: int) -> None:
    """The CPU used until ``count`` requests or jobs were done, per program, in ms each (the
    model server's apart: it works on the summaries meanwhile), the busiest first."""
    model = used.pop("model server", 0.0)
    total = sum(used.values())
    parts = ", ".join(
        f"{name} {seconds * 1000 / count:.1f}" for name, seconds in used.items() if seconds > 0.1
    )
    print(
        f"  CPU until {what} were done: {total * 1000 / count:.1f} ms each ({parts}); the "
        f"model server's meanwhile {model:.1f} s",
        flush=True,
    )


def several(rng: random.Random, conversations: int) -> dict[str, Any]:
    """A fast-tier translation of ``conversations`` one-message conversations."""
    body = short_translation(rng)
    scope = body["request"]["scope"]
    for number in range(1, conversations):
        [more] = short_translation(rng)["request"]["scope"]["conversations"]
        scope["conversations"].append(more | {"conversationId": f"conv-{number}"})
    return body


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _p50(latencies: Sequence[float]) -> float:
    return statistics.median(latencies) if latencies else float("nan")


async def run(
    cluster: Cluster, token: str, receiver: Receiver, hook: str, args: argparse.Namespace
) -> list[str]:
    rng = random.Random(args.seed)
    problems: list[str] = []
    idle = await probe(cluster.url, token, args.probe_seconds)
    idle_p50 = _p50([latency for _, latency in idle])
    print(f"idle: {len(idle)} synchronous translations, p50 {idle_p50 * 1000:.1f} ms", flush=True)

    translations = [several(rng, args.conversations) for _ in range(args.translations)]
    chats = support_chat_bodies()
    summaries = []
    for number in range(args.summaries):
        chat = chats[number % len(chats)]
        chat["request"]["context"]["organizationId"] = ORGANIZATION
        summaries.append(chat)
    cpu = cpu_by_program()
    seconds, all_sync, cpu_after = await synchronous(
        cluster.url,
        token,
        [unique(b) for b in translations],
        [unique(b) for b in summaries],
        args.concurrency,
    )
    sync_rate = len(translations) / seconds
    sync_cpu = cpu_used(cpu, cpu_after)
    print(
        f"synchronous: {len(translations)} translations answered in {seconds:.1f} s "
        f"({sync_rate:.1f}/s), and {len(summaries)} summaries beside them, everything in "
        f"{all_sync:.1f} s",
        flush=True,
    )
    _print_cpu("the synchronous translations", sync_cpu, len(translations))

    told = {"webhook": {"url": hook}} if args.webhooks else {}
    jobs: list[tuple[str, dict[str, Any]]] = [
        ("translate", unique(body) | told) for body in translations
    ]
    jobs += [("summarize", unique(body) | told) for body in summaries]
    rng.shuffle(jobs)
    receiver.expected = len(jobs)
    before = ended_counts(cluster)
    started_at = datetime.now(UTC)
    cpu = cpu_by_program()
    submitted, started = await submit(cluster, token, jobs, args.concurrency, args.batch)
    submit_seconds = time.perf_counter() - started
    print(f"jobs: {len(submitted)} submitted in {submit_seconds:.1f} s", flush=True)
    _print_cpu("they were submitted", cpu_used(cpu, cpu_by_program()), len(submitted))
    translated = {j for j, op in submitted.items() if op == "translate"}

    await ended_all(cluster.url, token, receiver, translated, started + args.timeout, args)
    jobs_cpu = cpu_used(cpu, cpu_by_program())
    with receiver.lock:
        hooked = {j: receiver.ended[j][0] for j in translated if j in receiver.ended}
    # A job is done when its result is there (finishedAt); its webhook follows.
    finished = {
        j: at for j, at in (await finished_at(cluster.url, token)).items() if j in translated
    }
    job_seconds = (max(finished.values()) - started_at).total_seconds() if finished else 1e9
    job_rate = len(finished) / job_seconds
    told_at = f"; their last webhook {max(hooked.values()) - started:.1f} s after" if hooked else ""
    print(
        f"jobs: {len(finished)} translation jobs finished {job_seconds:.1f} s after the first "
        f"submission, {job_rate:.1f}/s (synchronous {sync_rate:.1f}/s: ratio "
        f"{job_rate / sync_rate:.2f}){told_at}",
        flush=True,
    )
    _print_cpu("the translation jobs (and their webhooks)", jobs_cpu, len(translated))
    last = max(finished.values()) if finished else started_at
    summaries_started = await started_between(
        cluster.url, token, {j for j, op in submitted.items() if op == "summarize"}
    )
    beside = sorted((at - started_at).total_seconds() for at in summaries_started if at <= last)
    print(
        f"  summary jobs started while the translation jobs ran: {len(beside)}"
        + (f" (at {', '.join(f'{s:.1f}' for s in beside)} s)" if beside else ""),
        flush=True,
    )
    # Once every job is in, the queue drains with no submission beside it.
    all_in = started_at + timedelta(seconds=submit_seconds)
    drained = sorted(at for at in finished.values() if at > all_in)
    if len(drained) > 1:
        drain = len(drained) / (drained[-1] - all_in).total_seconds()
        print(
            f"  once all were submitted, {len(drained)} finished at {drain:.1f}/s (ratio "
            f"{drain / sync_rate:.2f})",
            flush=True,
        )
    await ended_all(cluster.url, token, receiver, set(submitted), started + args.timeout, args)
    all_seconds = time.perf_counter() - started
    with receiver.lock:
        statuses = {j: receiver.ended.get(j, (0.0, "missing"))[1] for j in submitted}
        repeated = receiver.repeated
    if not args.webhooks:
        done = await finished_at(cluster.url, token)
        statuses = {j: "completed" if j in done else "missing" for j in submitted}
    after = ended_counts(cluster)
    for _ in range(10):  # a worker apart writes its metrics every second
        if sum(after.values()) - sum(before.values()) >= len(submitted):
            break
        await asyncio.sleep(0.5)
        after = ended_counts(cluster)
    ended = {name: after[name] - before.get(name, 0) for name in after}
    print(
        f"all jobs: {sum(s == 'completed' for s in statuses.values())} of {len(submitted)} "
        f"completed within {all_seconds:.1f} s; ended per replica {ended}; webhooks "
        f"repeated {repeated}",
        flush=True,
    )
    batches = batch_sizes(cluster.database_url, set(translated))
    print(
        f"  the {len(translated)} translation jobs ran in {len(batches)} batches "
        f"(jobs stored together, a task of the queue each): median "
        f"{statistics.median(batches):.0f}, largest {max(batches)}",
        flush=True,
    )
    # 4. The probe while translation jobs run: requests go first.
    more = [("translate", unique(b) | told) for b in translations]
    stop = asyncio.Event()
    probing = asyncio.create_task(probe(cluster.url, token, 3600, stop))
    again, again_started = await submit(cluster, token, more, args.concurrency, args.batch)
    submitted_at = time.perf_counter()
    await ended_all(cluster.url, token, receiver, set(again), again_started + args.timeout, args)
    stop.set()
    probed = await probing
    # Beside the submissions, the probe meets 16 clients' requests (as beside 16 synchronous
    # clients); after them, the jobs' work alone: what the target is about.
    beside_submissions = _p50([latency for at, latency in probed if at < submitted_at])
    running = [latency for at, latency in probed if at >= submitted_at]
    busy_p50 = _p50(running)
    print(
        f"probe while {len(again)} more translation jobs were submitted "
        f"({submitted_at - again_started:.1f} s): p50 {beside_submissions * 1000:.1f} ms "
        f"({beside_submissions / idle_p50:.2f}x idle); then while they ran "
        f"({time.perf_counter() - submitted_at:.1f} s): {len(running)} requests, p50 "
        f"{busy_p50 * 1000:.1f} ms ({busy_p50 / idle_p50:.2f}x idle)",
        flush=True,
    )
    # A sample's result: one item per message, as the synchronous answer.
    for job_id in list(translated)[:20]:
        job = httpx2.get(f"{cluster.url}/jobs/{job_id}", headers=_auth(token), timeout=30).json()
        items = job["result"]["message"]["results"][0]["response"]
        if len(items) != args.conversations:
            problems.append(f"job {job_id}: {len(items)} items for {args.conversations} messages")
    if any(s != "completed" for s in statuses.values()):
        lost = sum(s == "missing" for s in statuses.values())
        other = sum(s not in ("completed", "missing") for s in statuses.values())
        problems.append(f"{lost} jobs without an end, {other} ended but not completed")
    if sum(ended.values()) != len(submitted):
        problems.append(f"{sum(ended.values()):.0f} jobs ended for {len(submitted)} submitted")
    if job_rate < 0.9 * sync_rate:
        problems.append(
            f"job throughput {job_rate / sync_rate:.2f}x the synchronous path's (target ≥ 0.9)"
        )
    if busy_p50 > 1.5 * idle_p50:
        problems.append(
            f"synchronous p50 under jobs {busy_p50 / idle_p50:.2f}x idle (target ≤ 1.5)"
        )
    return problems


def bench(argv: Sequence[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["default", "small"], default="small")
    parser.add_argument("--translations", type=int, default=1000)
    parser.add_argument("--summaries", type=int, default=20)
    parser.add_argument(
        "--conversations", type=int, default=1, help="in each translation (a message each)"
    )
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--batch",
        type=int,
        default=50,
        help="jobs per POST /jobs/batch (1: a POST /jobs/{operation} each)",
    )
    parser.add_argument("--probe-seconds", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=3600.0, help="for every job to end")
    parser.add_argument("--model-nice", type=int, default=10)
    parser.add_argument(
        "--worker-nice", type=int, default=None, help="THREADWISE_JOBS_WORKER_NICE (default 10)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the logs and state")
    parser.add_argument(
        "--no-webhooks", dest="webhooks", action="store_false", help="jobs without webhooks"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    state = Path(tempfile.mkdtemp(prefix="threadwise-bench-jobs-"))
    try:
        with receiving() as (receiver, port):
            settings = {
                "THREADWISE_RESULT_CACHE_TTL_SECONDS": "0",
                "THREADWISE_METRICS_TOKEN": METRICS_TOKEN,
                "THREADWISE_WEBHOOK_ALLOWED_HOSTS": f"127.0.0.1:{port}",
            }
            if args.worker_nice is not None:
                settings["THREADWISE_JOBS_WORKER_NICE"] = str(args.worker_nice)
            with running_cluster(
                state, model=args.model, settings=settings, model_nice=args.model_nice
            ) as cluster:
                client = cluster.create_client(ORGANIZATION)
                subprocess.run(
                    [_threadwise(), "webhooks", "secret", "create", ORGANIZATION],
                    env=cluster.environment, check=True, capture_output=True,
                )  # fmt: skip
                token = cluster.token(client)
                print(
                    f"cluster: {len(cluster.replicas)} replicas behind {cluster.url} ({args.model} "
                    "model); nothing else should run beside it",
                    flush=True,
                )
                hook = f"http://127.0.0.1:{port}/hook"
                return asyncio.run(run(cluster, token, receiver, hook, args))
    finally:
        if args.keep:
            print(f"state and logs kept in {state}", flush=True)
        else:
            shutil.rmtree(state, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    problems = bench(argv)
    print("\n" + ("targets met" if not problems else "targets missed:\n  " + "\n  ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(main())
