"""Jobs over the WebSocket on a live server: a ``job`` frame answered at once ``accepted``, its
end pushed on the same socket with the result, beside ordinary requests; submission errors as
the usual error frames, the socket still usable; a socket closed before the job ends stops
watching it while the job completes (REST shows it). Fast tier only: no model."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

from tests.api.socket.clients import ENGLISH, assert_reply_to, fast_queue_blocked, reply
from tests.api.stack import auth_stack, host, new_org
from tests.conftest import eventually, minimal_body, serving
from threadwise.protocol import SocketJobReply
from threadwise.services import Services
from threadwise.serving.job_watch import POLL_SECONDS

pytestmark = pytest.mark.anyio

TENANT = "acme"


@dataclass
class Live:
    port: int
    services: Services
    organization: str
    token: str

    def job(self, job_id: str) -> dict[str, Any]:
        answer = httpx2.get(
            f"http://127.0.0.1:{self.port}/jobs/{job_id}",
            headers={"Authorization": f"Bearer {self.token}", "Host": host(TENANT)},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        job: dict[str, Any] = answer.json()
        return job

    @asynccontextmanager
    async def socket(self) -> AsyncIterator[ClientConnection]:
        # The tenant is told by the host name; the connection goes to loopback.
        async with websockets.connect(
            f"ws://{host(TENANT)}:{self.port}/ws",
            host="127.0.0.1",
            port=self.port,
            proxy=None,
            subprotocols=[Subprotocol("optave-v1"), Subprotocol(self.token)],
        ) as connection:
            yield connection


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    data_dir: Path = tmp_path_factory.mktemp("socket-jobs")
    with auth_stack(data_dir) as stack:
        organization = new_org()
        client = stack.register(
            organization, requests_per_minute=100_000, characters_per_minute=100_000_000
        )
        with serving(stack.services, stack.services.settings) as server:
            yield Live(server.config.port, stack.services, organization, stack.fetch_token(client))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def body(
    organization: str, conversations: int = 1, content: str = ENGLISH, **settings: Any
) -> dict[str, Any]:
    built = minimal_body(
        context={"organizationId": organization},
        settings={"targetLanguages": ["es-ES"], "translationMode": "fast", **settings},
    )
    first = built["request"]["scope"]["conversations"][0]
    first["messages"] = [{"participantId": "c", "content": content}]
    built["request"]["scope"]["conversations"] = [
        {**first, "conversationId": f"conv-{n}"} for n in range(conversations)
    ]
    return built


def job_frame(
    correlation_id: str, payload: dict[str, Any], action: str = "translate", **headers: str
) -> str:
    frame = {
        "action": "job",
        "headers": {"correlationId": correlation_id, "action": action, **headers},
        "payload": payload,
    }
    return json.dumps(frame)


def assert_job_reply(frame: dict[str, Any], correlation_id: str, state: str) -> dict[str, Any]:
    SocketJobReply.model_validate(frame)
    assert frame["action"] == "job" and frame["actionType"] == "translate"
    assert frame["state"] == state
    assert frame["correlationId"] == frame["headers"]["correlationId"] == correlation_id
    assert "error" not in frame and "payload" not in frame
    job: dict[str, Any] = frame["job"]
    return job


async def test_a_job_is_accepted_at_once_and_its_end_pushed_on_the_socket(live: Live) -> None:
    async with live.socket() as connection:
        await connection.send(job_frame("job-1", body(live.organization, conversations=2)))
        accepted = assert_job_reply(await reply(connection), "job-1", "accepted")
        assert accepted["status"] in ("queued", "running") and "result" not in accepted
        assert accepted["progress"]["total"] == 2
        # An ordinary request on the same socket meanwhile, framed as the official client does.
        message = {
            "action": "message",
            "headers": {"correlationId": "sync-1", "action": "translate"},
            "payload": body(live.organization),
        }
        await connection.send(json.dumps(message))
        frames = {}
        for _ in range(2):
            frame = await reply(connection, timeout=60)
            frames[frame["correlationId"]] = frame
    assert_reply_to(frames["sync-1"], "sync-1", "translate", "completed")
    ended = assert_job_reply(frames["job-1"], "job-1", "completed")
    assert ended["jobId"] == accepted["jobId"] and ended["progress"] == {"done": 2, "total": 2}
    result = ended["result"]
    assert result["state"] == "completed" and len(result["message"]["results"][0]["response"]) == 2
    assert live.job(accepted["jobId"]) == ended  # the job as REST shows it


async def test_an_idempotency_key_gives_the_same_job_and_each_frame_its_end(live: Live) -> None:
    key = f"key-{time.monotonic_ns()}"
    payload = body(live.organization)
    async with live.socket() as connection:
        await connection.send(job_frame("a", payload, idempotencyKey=key))
        await connection.send(job_frame("b", payload, idempotencyKey=key))
        frames = [await reply(connection, timeout=60) for _ in range(4)]
        await connection.send(job_frame("c", body(live.organization, 2), idempotencyKey=key))
        reused = await reply(connection)
    by_state = {(f["correlationId"], f["state"]): f for f in frames}
    assert set(by_state) == {(c, s) for c in "ab" for s in ("accepted", "completed")}
    assert by_state["a", "accepted"]["headers"]["idempotencyKey"] == key
    assert len({f["job"]["jobId"] for f in frames}) == 1
    assert_reply_to(reused, "c", "translate", "error")
    assert reused["error"]["code"] == "IDEMPOTENCY_KEY_REUSED"


async def test_bad_job_frames_get_error_replies_and_the_socket_stays_usable(live: Live) -> None:
    other = new_org()
    bad: list[tuple[str, dict[str, Any], str, str]] = [
        ("dance", body(live.organization), "UNKNOWN_ACTION", "dance"),
        ("translate", {"request": "nothing"}, "PAYLOAD_SCHEMA_MISMATCH", "translate"),
        ("translate", body(live.organization) | {"webhook": {"url": 7}}, "", "translate"),
        (
            "translate",
            body(live.organization) | {"webhook": {"url": "http://169.254.169.254/latest/"}},
            "PAYLOAD_SCHEMA_MISMATCH",
            "translate",
        ),
        (
            "translate",
            body(live.organization, targetLanguages=["tlh"]),
            "UNSUPPORTED_LANGUAGE",
            "translate",
        ),
        ("translate", body(other), "FORBIDDEN_ORGANIZATION", "translate"),
    ]
    async with live.socket() as connection:
        for number, (action, payload, code, shown) in enumerate(bad):
            await connection.send(job_frame(f"bad-{number}", payload, action))
            refused = await reply(connection)
            assert_reply_to(refused, f"bad-{number}", shown, "error")
            assert refused["error"]["code"] == (code or "PAYLOAD_SCHEMA_MISMATCH"), refused
            if "webhook" in payload:
                assert "webhook" in refused["error"]["message"]
        await connection.send(job_frame("good", body(live.organization)))
        assert_job_reply(await reply(connection), "good", "accepted")
        assert_job_reply(await reply(connection, timeout=60), "good", "completed")


async def test_a_socket_closed_before_the_job_ends_stops_watching_it(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    watcher = live.services.jobs.watcher
    # Never translated before: no cached answer ends the job while the engines are held.
    content = f"Good morning, my parcel {time.monotonic_ns()} has not arrived yet."
    with fast_queue_blocked(live.services):
        async with live.socket() as connection:
            await connection.send(job_frame("gone", body(live.organization, content=content)))
            job_id = assert_job_reply(await reply(connection), "gone", "accepted")["jobId"]
            assert watcher.watched() == 1
        eventually(lambda: watcher.watched() == 0, 10, "the closed socket's job is still watched")
        assert live.job(job_id)["status"] in ("queued", "running")
    eventually(lambda: live.job(job_id)["status"] == "completed", 60, "the job did not complete")
    await asyncio.sleep(2 * POLL_SECONDS)  # a poll that would have told the closed socket
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
