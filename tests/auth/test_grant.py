"""The client-credentials grant's failure limits, with each limiter (in the process, Redis):
per client id from one address, and per address; concurrent guesses counted before any is
checked."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from threadwise.auth.audit import AuditLog
from threadwise.auth.clients import ClientRegistry, ClientSecret
from threadwise.auth.credentials import SecretHasher, client_reference
from threadwise.auth.grant import (
    ClientCredentials,
    ClientCredentialsGrant,
    FailureLimits,
    OAuthError,
    TokenResponse,
    failure_source,
)
from threadwise.auth.keys import KeyRing, hmac_key
from threadwise.auth.ratelimit import RateLimiter
from threadwise.auth.tokens import TokenIssuer
from threadwise.db.database import Database

ATTACKER, USER = "198.51.100.7", "203.0.113.20"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    built = Database(f"sqlite:///{tmp_path_factory.mktemp('grant') / 'threadwise.db'}")
    built.upgrade()
    yield built
    built.close()


def build_grant(
    database: Database,
    limiter: RateLimiter,
    per_client: int = 10,
    per_address: int = 30,
    clock: Callable[[], float] = time.monotonic,
) -> ClientCredentialsGrant:
    # A cheap hash: these tests count answers, they do not time them.
    clients = ClientRegistry(database, SecretHasher(time_cost=1, memory_kib=1024))
    keys = KeyRing(hmac_key("a token secret of the tests, 32 bytes or more", "k1"), [])
    return ClientCredentialsGrant(
        clients,
        TokenIssuer(keys, "threadwise", 600),
        AuditLog(database),
        limiter,
        FailureLimits(per_client, per_address),
        None,
        clock,
    )


def register(grant: ClientCredentialsGrant) -> ClientSecret:
    return grant.clients.create("default", [f"org-{uuid.uuid4().hex[:8]}"])


async def attempt(
    grant: ClientCredentialsGrant, client_id: str, secret: str, address: str
) -> TokenResponse | int:
    """The token, or the status it was refused with."""
    credentials = ClientCredentials("client_credentials", client_id, secret)
    try:
        return await grant.issue(credentials, "localhost", address)
    except OAuthError as exc:
        return exc.status


def run(grant: ClientCredentialsGrant, client_id: str, secret: str, address: str) -> object:
    return asyncio.run(attempt(grant, client_id, secret, address))


def test_concurrent_wrong_secrets_cannot_pass_the_limit(
    database: Database, limiter: RateLimiter
) -> None:
    """Each request reserves its failure before its secret is checked: of 50 guesses sent at
    once, only the limit's worth are checked at all."""
    grant = build_grant(database, limiter, per_client=10)
    client = register(grant)
    client_id = client.client.client_id

    async def guesses() -> list[TokenResponse | int]:
        sent = [attempt(grant, client_id, f"tws_guess-{n}", ATTACKER) for n in range(50)]
        return await asyncio.gather(*sent)

    answers = asyncio.run(guesses())
    assert sorted(answers, key=str) == [401] * 10 + [429] * 40
    assert run(grant, client_id, client.client_secret, ATTACKER) == 429


def test_failures_from_one_address_do_not_lock_the_client_out_elsewhere(
    database: Database, limiter: RateLimiter
) -> None:
    grant = build_grant(database, limiter, per_client=3)
    client = register(grant)
    client_id, secret = client.client.client_id, client.client_secret
    for _ in range(3):
        assert run(grant, client_id, "tws_guess", ATTACKER) == 401
    assert run(grant, client_id, secret, ATTACKER) == 429
    assert isinstance(run(grant, client_id, secret, USER), TokenResponse)
    # An IPv6 guesser is one /64: moving within it does not reset the count.
    for _ in range(3):
        assert run(grant, client_id, "tws_guess", "2001:db8:1:2::7") == 401
    assert run(grant, client_id, secret, "2001:db8:1:2::8") == 429
    assert isinstance(run(grant, client_id, secret, "2001:db8:1:3::8"), TokenResponse)


def test_a_flood_from_one_address_is_limited_across_client_ids(
    database: Database, limiter: RateLimiter
) -> None:
    grant = build_grant(database, limiter, per_client=10, per_address=5)
    for _ in range(5):
        unknown = f"twc_{uuid.uuid4().hex[:24]}"
        assert run(grant, unknown, "tws_guess", ATTACKER) == 401
    client = register(grant)
    client_id, secret = client.client.client_id, client.client_secret
    assert run(grant, client_id, secret, ATTACKER) == 429
    assert isinstance(run(grant, client_id, secret, USER), TokenResponse)


def test_the_right_secret_gives_its_reservation_back(
    database: Database, limiter: RateLimiter
) -> None:
    grant = build_grant(database, limiter, per_client=2, per_address=2)
    client = register(grant)
    client_id, secret = client.client.client_id, client.client_secret
    for _ in range(5):
        assert isinstance(run(grant, client_id, secret, ATTACKER), TokenResponse)
    assert run(grant, client_id, "tws_guess", ATTACKER) == 401
    assert run(grant, client_id, "tws_guess", ATTACKER) == 401
    assert run(grant, client_id, secret, ATTACKER) == 429


def test_refusals_are_logged_without_the_client_id(
    database: Database, limiter: RateLimiter, caplog: pytest.LogCaptureFixture
) -> None:
    grant = build_grant(database, limiter)
    client_id = register(grant).client.client_id
    with caplog.at_level(logging.INFO, logger="threadwise.auth"):
        assert run(grant, client_id, "tws_guess", ATTACKER) == 401
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert client_reference(client_id) in logged
    assert client_id not in logged
    assert client_id[4:] not in logged


def test_a_flood_of_limited_requests_is_recorded_once_a_minute_with_its_count(
    database: Database, limiter: RateLimiter
) -> None:
    """Each refusal of a limited address was a row of its own: 600 in 1.9 s, without a token."""
    minutes = [0.0]
    grant = build_grant(database, limiter, per_address=5, clock=lambda: minutes[0] * 60)

    def recorded_for(address: str) -> list[str | None]:
        events = AuditLog(database).recent(1000)
        return [e.detail for e in reversed(events) if e.address == address]

    # The module's database is shared (and this test runs once per limiter): an address no
    # earlier test recorded (a random one collided once in 250 runs).
    address = next(a for n in range(1, 255) if not recorded_for(a := f"192.0.2.{n}"))

    def flood(requests: int) -> None:
        for _ in range(requests):
            assert run(grant, f"twc_{uuid.uuid4().hex[:24]}", "tws_guess", address) in (401, 429)

    def recorded() -> list[str | None]:
        return recorded_for(address)

    flood(200)
    checked = ["unknown_client"] * 5  # what the limit lets through, each checked
    assert recorded() == [*checked, "too_many_failures"]
    minutes[0] = 1  # a minute later: the last minute's count, and the first of this one
    flood(1)
    counted = "too_many_failures: 194 more within 60 s"
    assert recorded() == [*checked, "too_many_failures", counted, "too_many_failures"]
    flood(3)
    grant.close()  # at shutdown, what was counted is recorded
    assert recorded()[-1] == "too_many_failures: 3 more within 60 s"


def test_failure_sources() -> None:
    assert failure_source("198.51.100.7") == "198.51.100.7"
    assert failure_source("::ffff:198.51.100.7") == "198.51.100.7"
    assert failure_source("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert failure_source("testclient") == "testclient"
    assert failure_source("x" * 500) == "x" * 64
