"""Authentication costs: tokens issued per second, and what checking a token adds to a request.

    .venv/bin/python -m bench.auth [--database-url URL] [--redis-url URL]

Token issuance is measured twice: the whole client-credentials grant (argon2id secret check,
database read, audit write, signing) and signing alone. The per-request cost is what the
gate does before any superpower work: check the token's signature and claims, look the
client up (cached), check the organization and take from its rate limits. Target: < 0.2 ms
at p50 for the token check.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from threadwise.auth.grant import ClientCredentials
from threadwise.config import Settings
from threadwise.services import AuthServices, build_auth_services

TARGET_MS = 0.2


def percentiles(samples_ns: list[int]) -> tuple[float, float]:
    ordered = sorted(samples_ns)
    p50 = ordered[len(ordered) // 2] / 1e6
    p95 = ordered[int(len(ordered) * 0.95)] / 1e6
    return p50, p95


async def timed(call: Callable[[], Awaitable[object]], runs: int) -> list[int]:
    for _ in range(min(runs, 500)):  # warm up caches and code paths
        await call()
    samples: list[int] = []
    for _ in range(runs):
        started = time.perf_counter_ns()
        await call()
        samples.append(time.perf_counter_ns() - started)
    return samples


async def bench(auth: AuthServices, grants: int, mints: int, checks: int) -> None:
    org = "org-bench"
    unlimited = 2**31 - 1  # the bench measures the checks, not the refusals
    client = auth.clients.create(
        "default", [org], "bench", requests_per_minute=unlimited, characters_per_minute=unlimited
    )
    credentials = ClientCredentials(
        "client_credentials", client.client.client_id, client.client_secret
    )

    started = time.perf_counter()
    for _ in range(grants):
        token = (await auth.grant.issue(credentials, "127.0.0.1", "127.0.0.1")).access_token
    grant_seconds = time.perf_counter() - started
    print(
        f"token endpoint grant (argon2id check + database + signing): "
        f"{grants / grant_seconds:.1f} tokens/s ({1000 * grant_seconds / grants:.1f} ms each)"
    )

    started = time.perf_counter()
    for _ in range(mints):
        auth.issuer.issue("default", client.client.client_id, [org])
    mint_seconds = time.perf_counter() - started
    print(f"signing alone ({auth.keys.current.algorithm}): {mints / mint_seconds:,.0f} tokens/s")

    gate = auth.gate

    async def verify() -> object:
        return gate.verifier.verify(token, "default")

    async def authenticate() -> object:
        return await gate.authenticate(token, "127.0.0.1:8000")

    principal = await gate.authenticate(token, "127.0.0.1:8000")

    async def admit() -> None:
        gate.authorize(principal, org)
        await gate.admit(principal, org, 2000)

    async def whole() -> None:
        caller = await gate.authenticate(token, "127.0.0.1:8000")
        gate.authorize(caller, org)
        await gate.admit(caller, org, 2000)

    rows = [
        ("signature and claims (PyJWT)", verify),
        ("token check: authenticate()", authenticate),
        ("organization + rate limits: admit()", admit),
        ("whole gate per request", whole),
    ]
    medians: dict[str, float] = {}
    for label, call in rows:
        p50, p95 = percentiles(await timed(call, checks))
        medians[label] = p50
        print(f"{label:<38} p50 {p50:.4f} ms   p95 {p95:.4f} ms   ({checks:,} runs)")
    p50 = medians["token check: authenticate()"]
    verdict = "meets" if p50 < TARGET_MS else "MISSES"
    print(f"token verification adds {p50:.4f} ms at p50: {verdict} the {TARGET_MS} ms target")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a SQLite file in a temporary directory")
    parser.add_argument("--redis-url", help="share rate limits through Redis")
    parser.add_argument("--grants", type=int, default=40)
    parser.add_argument("--mints", type=int, default=5000)
    parser.add_argument("--checks", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(
            data_dir=Path(data_dir),
            database_url=args.database_url,
            redis_url=args.redis_url,
            token_failures_per_minute_per_address=10**6,
        )
        auth = build_auth_services(settings)
        backend = auth.database.dialect
        limiter = "Redis" if args.redis_url else "in-process"
        print(f"database {backend}, rate limits {limiter}")
        try:
            asyncio.run(bench(auth, args.grants, args.mints, args.checks))
        finally:
            auth.close()


if __name__ == "__main__":
    main()
