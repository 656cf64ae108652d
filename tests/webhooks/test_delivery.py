"""Deliveries to a real receiver on 127.0.0.1 (allowed as an operator would allow it): signed,
recorded, never raised, whatever the receiver does."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook

from tests.webhooks.conftest import TLS_NAME, Receiver
from threadwise.webhooks.delivery import Sender, deliver
from threadwise.webhooks.signing import new_message_id, new_secret, signed_headers
from threadwise.webhooks.targets import Target, resolve_target

pytestmark = pytest.mark.anyio

BODY = json.dumps({"type": "job.completed", "data": {"id": "job_1"}}).encode()


async def _target(receiver: Receiver, path: str) -> Target:
    return await resolve_target(receiver.url(path), [receiver.host])


async def test_the_receiver_verifies_the_signature(receiver: Receiver) -> None:
    secret = new_secret()
    headers = signed_headers([secret], new_message_id(), datetime.now(UTC), BODY)
    attempt = await deliver(await _target(receiver, "/hook"), BODY, headers)
    assert attempt.ok and attempt.status == 204 and attempt.error is None
    assert attempt.duration_ms >= 0 and attempt.started_at.tzinfo is not None
    [(path, received, body)] = receiver.received
    assert path == "/hook" and body == BODY
    assert received["Content-Type"] == "application/json"
    assert received["Host"] == receiver.host
    assert Webhook(secret).verify(body, received) == json.loads(BODY)


async def test_during_a_rotation_receivers_with_either_secret_verify(receiver: Receiver) -> None:
    new, old = new_secret(), new_secret()
    headers = signed_headers([new, old], new_message_id(), datetime.now(UTC), BODY)
    assert (await deliver(await _target(receiver, "/hook"), BODY, headers)).ok
    [(_, received, body)] = receiver.received
    for secret in (new, old):
        Webhook(secret).verify(body, received)


async def test_a_server_error_is_a_failed_attempt(receiver: Receiver) -> None:
    attempt = await deliver(await _target(receiver, "/status/500"), BODY, {})
    assert not attempt.ok and attempt.status == 500
    assert attempt.error == "The receiver answered 500."


async def test_a_timeout_is_a_failed_attempt(receiver: Receiver) -> None:
    attempt = await deliver(await _target(receiver, "/slow"), BODY, {}, timeout=0.3)
    assert not attempt.ok and attempt.status is None
    assert attempt.error == "The receiver did not answer within 0.3 s."


async def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    attempt = await deliver(await _target(receiver, "/redirect"), BODY, {})
    assert not attempt.ok and attempt.status == 302
    assert attempt.error is not None and "redirects are not followed" in attempt.error
    assert [path for path, _, _ in receiver.received] == ["/redirect"]


async def test_a_large_answer_is_cut_at_the_cap(receiver: Receiver) -> None:
    attempt = await deliver(await _target(receiver, "/big"), BODY, {}, max_response_bytes=1000)
    assert attempt.ok and attempt.response == b"x" * 1000


async def test_a_refused_connection_is_a_failed_attempt(receiver: Receiver) -> None:
    target = await _target(receiver, "/hook")
    closed = Target(target.url, "http", "127.0.0.1", 1, "/hook", ("127.0.0.1",))
    attempt = await deliver(closed, BODY, {})
    assert not attempt.ok and attempt.status is None
    assert attempt.error is not None and attempt.error.startswith("The request to 127.0.0.1 failed")


async def test_the_connection_goes_to_the_checked_address(receiver: Receiver) -> None:
    """A host whose DNS answer would now differ is still reached at the address checked,
    with its own name in the Host header."""
    target = Target(
        f"http://hooks.example:{receiver.port}/hook",
        "http",
        "hooks.example",
        receiver.port,
        "/hook",
        ("127.0.0.1",),
    )
    assert (await deliver(target, BODY, {})).ok
    [(_, received, _)] = receiver.received
    assert received["Host"] == f"hooks.example:{receiver.port}"


async def test_over_https_the_certificate_is_checked_for_the_urls_host(
    tls_receiver: Receiver,
) -> None:
    """Connected to the checked address, TLS still names the URL's host (SNI) and checks
    the certificate against it."""

    def target(host: str) -> Target:
        url = f"https://{host}:{tls_receiver.port}/hook"
        return Target(url, "https", host, tls_receiver.port, "/hook", ("127.0.0.1",))

    attempt = await deliver(target(TLS_NAME), BODY, {}, tls=tls_receiver.client_tls)
    assert attempt.ok, attempt.error
    assert tls_receiver.received[-1][1]["Host"] == f"{TLS_NAME}:{tls_receiver.port}"

    wrong = await deliver(target("other.example"), BODY, {}, tls=tls_receiver.client_tls)
    assert not wrong.ok and wrong.error is not None and "certificate" in wrong.error.lower()


async def test_attempts_made_together_share_a_connection_to_their_host(receiver: Receiver) -> None:
    target = await _target(receiver, "/hook")
    async with Sender() as sender:
        for _ in range(3):
            assert (await sender.deliver(target, BODY, {})).ok
    assert (await deliver(target, BODY, {})).ok  # alone: a connection of its own
    assert len(receiver.ports) == 4 and len(set(receiver.ports[:3])) == 1
    assert receiver.ports[3] != receiver.ports[0]
