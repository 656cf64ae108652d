"""Two replicas behind HAProxy, as in production: what one client sees through the balancer
(the official client's frames, shared limits and idempotency keys), and what a replica that
stops (SIGTERM) or dies (kill -9) under load costs: nothing, and only its in-flight requests,
which clients get answered once by sending them again with their idempotency keys."""

from __future__ import annotations

import asyncio
import json
import random
import re
import signal
import threading
import uuid
from collections.abc import Callable
from typing import Any

import httpx2
from websockets.sync.client import connect
from websockets.typing import Subprotocol

from bench.cluster import Outcome, answered
from bench.common import support_chat_bodies
from bench.load import (
    ORGANIZATION,
    MixedTransport,
    RestTransport,
    SocketTransport,
    repeated_answers,
    short_translation,
    unique,
)
from scripts.cluster import Cluster, Replica
from tests.api.sdk_frames import example_params, sdk_frame
from tests.cluster.conftest import METRICS_TOKEN
from tests.conftest import eventually
from tests.test_node_clients import run as run_node

SHORT_CHATS = [
    c
    for c in support_chat_bodies()
    if len(c["request"]["scope"]["conversations"][0]["messages"]) < 20
]


def _headers(token: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **more}


REPLAYED = 'threadwise_cache_lookups_total{cache="idempotency",outcome="replayed"}'
CLAIMED = 'threadwise_cache_lookups_total{cache="idempotency",outcome="new"}'
IN_FLIGHT = "threadwise_requests_in_flight"


def _metric(replica: Replica, series: str) -> float:
    """One series of the replica's /metrics (0 before it first counts)."""
    text = httpx2.get(f"{replica.url}/metrics", headers=_headers(METRICS_TOKEN), timeout=10).text
    for line in text.splitlines():
        if line.rsplit(" ", 1)[0] == series:
            return float(line.split()[-1])
    return 0.0


def _wait_until(replica: Replica, series: str, above: float, seconds: float = 120) -> None:
    eventually(
        lambda: _metric(replica, series) > above,
        seconds,
        f"{series} of {replica.name} stayed at {above}",
    )


def test_the_official_clients_frames_through_the_balancer(cluster: Cluster) -> None:
    client = cluster.create_client("org-1")
    # Node.js, both WebSocket transports, several requests in flight on each socket.
    output = run_node("wire.mjs", cluster.url, client.client_id, client.client_secret)
    for transport in ("subprotocol", "query"):
        assert f"{transport}: 4 requests in flight, all answered" in output, output
    # The SDK's frame, byte for byte, over a socket; its payload over REST.
    token = cluster.token(client)
    ws_url = cluster.url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, subprotocols=[Subprotocol("optave-v1"), Subprotocol(token)]) as socket:
        socket.send(sdk_frame("translate", example_params("org-1", translationMode="fast")))
        reply = json.loads(socket.recv(timeout=60))
        assert reply["state"] == "completed", reply
        assert reply["actionType"] == "translate"
    answer = httpx2.post(
        f"{cluster.url}/message/summarize",
        json=example_params("org-1"),
        headers=_headers(token),
        timeout=300,
    )
    assert answer.status_code == 200, answer.text
    [item] = answer.json()["message"]["results"][0]["response"]
    assert item["type"] == "summary" and item["engine"].startswith("openai:")


def test_an_idempotency_key_sent_to_another_replica_gets_the_first_answer(
    cluster: Cluster,
) -> None:
    token = cluster.token(cluster.create_client(ORGANIZATION))
    body = unique(SHORT_CHATS[0])
    key = uuid.uuid4().hex
    first, second = cluster.replicas
    replays = _metric(second, REPLAYED)
    claims = _metric(first, CLAIMED)
    answers: list[httpx2.Response] = []

    def send(replica: Replica) -> None:
        answers.append(
            httpx2.post(
                f"{replica.url}/message/summarize",
                json=body,
                headers=_headers(token, **{"Idempotency-Key": key}),
                timeout=300,
            )
        )

    running = threading.Thread(target=send, args=(first,))
    running.start()
    _wait_until(first, CLAIMED, claims)  # the first holds the key, and runs
    send(second)  # while the first runs: waits for its answer
    running.join()
    send(second)  # after: answered from the store
    assert [a.status_code for a in answers] == [200, 200, 200], [a.text for a in answers]
    assert answers[0].json() == answers[1].json() == answers[2].json()
    assert _metric(second, REPLAYED) - replays == 2


def test_an_organizations_limits_hold_across_replicas(cluster: Cluster) -> None:
    organization = f"org-limited-{uuid.uuid4().hex[:8]}"
    token = cluster.token(cluster.create_client(organization, requests_per_minute=6))
    statuses = []
    for n in range(10):
        body = short_translation(random.Random(n))
        body["request"]["context"]["organizationId"] = organization
        replica = cluster.replicas[n % 2]
        answer = httpx2.post(
            f"{replica.url}/message/translate", json=body, headers=_headers(token), timeout=60
        )
        statuses.append(answer.status_code)
    assert sorted(statuses) == [200] * 6 + [429] * 4, statuses
    # Through the balancer: the same shared budget, spent.
    body = short_translation(random.Random(11))
    body["request"]["context"]["organizationId"] = organization
    answer = httpx2.post(
        f"{cluster.url}/message/translate", json=body, headers=_headers(token), timeout=60
    )
    assert answer.status_code == 429
    assert answer.json()["error"]["code"] == "RATE_LIMITED"


def _under_load(
    cluster: Cluster,
    token: str,
    event: Callable[[], Any],
    watched: Replica,
    summaries: int,
    translations: int,
) -> tuple[list[Outcome], int]:
    """Summaries and translations through the balancer, REST and WebSocket in turn, each
    sent with an idempotency key until it has a final answer (503s included); ``event`` runs
    once ``watched`` has requests in flight. The outcomes, and the WebSocket requests answered by
    more than one frame."""

    async def scenario() -> tuple[list[Outcome], int]:
        transport = MixedTransport(
            RestTransport(cluster.url, token), SocketTransport(cluster.url, token, sockets=2)
        )
        rng = random.Random(3)
        try:
            tasks = [
                asyncio.ensure_future(
                    answered(
                        transport, "summary", "summarize", unique(rng.choice(SHORT_CHATS)),
                        refusals=True, give_up_seconds=400,
                    )
                )
                for _ in range(summaries)
            ]  # fmt: skip
            await asyncio.to_thread(_wait_until, watched, IN_FLIGHT, 0)
            stopping = asyncio.ensure_future(asyncio.to_thread(event))
            for _ in range(translations):
                tasks.append(
                    asyncio.ensure_future(
                        answered(
                            transport, "translation", "translate", short_translation(rng),
                            refusals=True, give_up_seconds=120,
                        )
                    )
                )  # fmt: skip
                await asyncio.sleep(0.1)
            outcomes = list(await asyncio.gather(*tasks))
            await stopping
        finally:
            await transport.close()
        return outcomes, repeated_answers(transport)

    return asyncio.run(scenario())


def test_a_replica_stopped_under_load_loses_nothing(whole: Cluster) -> None:
    token = whole.token(whole.create_client(ORGANIZATION))
    stopped = whole.replicas[0]
    status: list[int | None] = []
    outcomes, repeated = _under_load(
        whole, token, lambda: status.append(stopped.stop(300)), stopped, 6, 40
    )
    assert status == [0]
    assert repeated == 0
    finals = [(o.kind, o.answer.status, o.answer.code) for o in outcomes]
    assert all(status == 200 for _, status, _ in finals), finals
    assert all(o.answer.own for o in outcomes)
    # Nothing was cut off: what a client sent again had been refused (503, nothing
    # started), never left without an answer or failed half-way (502). A frame that met the
    # socket's closing (1001, going away) is refused too: a draining socket starts nothing
    # it reads (503), and closes only once what it started is answered; a frame sent as it
    # closed was not read.
    earlier = [a for o in outcomes for a in o.attempts[:-1]]
    assert all(
        (a.status == 503 and a.code == "OVERLOADED") or _closed_going_away(a.failure)
        for a in earlier
    ), [(a.status, a.code, a.failure) for a in earlier]


def _closed_going_away(failure: str | None) -> bool:
    """Did the attempt meet its socket closing with 1001, the server going away?"""
    return failure is not None and re.search(r"\b1001\b", failure) is not None


def test_a_killed_replica_loses_only_its_in_flight_requests(whole: Cluster) -> None:
    token = whole.token(whole.create_client(ORGANIZATION))
    killed = whole.replicas[0]
    outcomes, repeated = _under_load(
        whole, token, lambda: killed.signal(signal.SIGKILL, whole=True), killed, 4, 30
    )
    assert killed.wait(10) == -signal.SIGKILL
    assert repeated == 0
    finals = [(o.kind, o.answer.status, o.answer.code) for o in outcomes]
    assert all(status == 200 for _, status, _ in finals), finals
    assert all(o.answer.own for o in outcomes)
    # Some requests were in flight on the killed replica: the client got no answer, or the
    # balancer's 502, and its retry with the key got exactly one answer from the other.
    interrupted = [o for o in outcomes if any(a.status in (None, 502) for a in o.attempts[:-1])]
    assert interrupted, [[(a.status, a.code) for a in o.attempts] for o in outcomes]
