"""RetryPolicy and the retries of ThreadwiseClient's calls, over a fake HTTP transport: which
answers are retried, how long each wait is, the bounds, and one idempotency key per call."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from tests.clock import ManualClock
from threadwise.client import RetryPolicy, ThreadwiseClient, ThreadwiseError
from threadwise.client.errors import retry_after_seconds
from threadwise.client.retry import with_retries

pytestmark = pytest.mark.anyio

Handler = Callable[[httpx2.Request], httpx2.Response]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def envelope_error(code: str, retryable: bool) -> dict[str, Any]:
    return {
        "action": "superpower",
        "actionType": "translate",
        "state": "error",
        "message": {"results": []},
        "error": {"code": code, "message": f"{code} for the test", "retryable": retryable},
    }


COMPLETED = {
    "action": "superpower",
    "actionType": "translate",
    "state": "completed",
    "message": {"results": [{"response": [{"content": "Hola", "targetLanguage": "es"}]}]},
}


class Server:
    """Answers each request with the next of ``answers``; records what came."""

    def __init__(self, *answers: httpx2.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    @property
    def keys(self) -> list[str | None]:
        return [r.headers.get("Idempotency-Key") for r in self.requests]


def client(server: Server, waits: list[float], **policy: Any) -> ThreadwiseClient:
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    return ThreadwiseClient(
        "http://threadwise.test",
        api_key="twk_test",
        transport=httpx2.MockTransport(server),
        retry=RetryPolicy(random=lambda: 0.5, **policy),
        sleep=sleep,
    )


async def test_retry_after_is_waited_and_the_key_is_the_same() -> None:
    server = Server(
        httpx2.Response(503, json=envelope_error("OVERLOADED", True), headers={"Retry-After": "3"}),
        httpx2.Response(
            429, json=envelope_error("RATE_LIMITED", True), headers={"Retry-After": "2"}
        ),
        httpx2.Response(200, json=COMPLETED),
    )
    waits: list[float] = []
    async with client(server, waits) as threadwise:
        [translation] = await threadwise.translate(["Hello"], organization="o", targets="es")
    assert translation.text == "Hola" and waits == [3.0, 2.0]
    key = server.keys[0]
    assert key and server.keys == [key, key, key]
    assert all(r.headers["Authorization"] == "Bearer twk_test" for r in server.requests)


async def test_each_call_has_its_own_key() -> None:
    server = Server(httpx2.Response(200, json=COMPLETED), httpx2.Response(200, json=COMPLETED))
    async with client(server, []) as threadwise:
        for _ in range(2):
            await threadwise.translate("Hello", organization="o", targets="es")
    assert len(set(server.keys)) == 2


async def test_balancer_errors_and_dropped_connections_back_off() -> None:
    server = Server(
        httpx2.Response(502, text="<html>Bad Gateway</html>"),
        httpx2.ConnectError("connection refused"),
        httpx2.ReadError("connection reset"),
        httpx2.Response(200, json=COMPLETED),
    )
    waits: list[float] = []
    async with client(server, waits, base_seconds=1.0) as threadwise:
        await threadwise.translate(["Hello"], organization="o", targets="es")
    # Full jitter at 0.5 of the ceilings 1, 2, 4.
    assert waits == [0.5, 1.0, 2.0]
    assert len(set(server.keys)) == 1


@pytest.mark.parametrize(
    ("status", "code"), [(422, "PAYLOAD_SCHEMA_MISMATCH"), (429, "QUOTA_EXCEEDED")]
)
async def test_what_the_server_says_will_fail_again_is_not_retried(status: int, code: str) -> None:
    server = Server(httpx2.Response(status, json=envelope_error(code, False)))
    async with client(server, []) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.translate(["Hello"], organization="o", targets="es")
    assert (refused.value.code, refused.value.status, refused.value.retryable) == (
        code,
        status,
        False,
    )
    assert len(server.requests) == 1


async def test_attempts_are_bounded_and_the_last_error_raised() -> None:
    overloaded = envelope_error("OVERLOADED", True)
    server = Server(
        *(httpx2.Response(503, json=overloaded, headers={"Retry-After": "1"}) for _ in range(3))
    )
    waits: list[float] = []
    async with client(server, waits, attempts=3) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.translate(["Hello"], organization="o", targets="es")
    assert refused.value.code == "OVERLOADED" and refused.value.retry_after == 1.0
    assert len(server.requests) == 3 and waits == [1.0, 1.0]


async def test_a_retry_after_past_the_bound_is_not_waited_for() -> None:
    limited = envelope_error("RATE_LIMITED", True)
    server = Server(httpx2.Response(429, json=limited, headers={"Retry-After": "600"}))
    async with client(server, [], max_retry_after=60) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.translate(["Hello"], organization="o", targets="es")
    assert refused.value.retry_after == 600.0 and len(server.requests) == 1


async def test_total_time_is_bounded() -> None:
    clock = ManualClock()
    calls = 0

    async def attempt() -> None:
        nonlocal calls
        calls += 1
        clock.now += 10  # each attempt takes 10 s
        raise ThreadwiseError("OVERLOADED", "busy", retryable=True, retry_after=5)

    async def sleep(seconds: float) -> None:
        clock.now += seconds

    policy = RetryPolicy(attempts=10, total_seconds=40)
    with pytest.raises(ThreadwiseError):
        await with_retries(policy, attempt, clock=clock, sleep=sleep)
    # 10 + 5 + 10 + 5 + 10 = 40; a third wait would end past 40 s.
    assert calls == 3


async def test_a_create_is_not_sent_again_once_it_may_have_arrived() -> None:
    server = Server(httpx2.ConnectError("refused"), httpx2.ReadError("reset"))
    async with client(server, []) as threadwise:
        with pytest.raises(httpx2.ReadError):
            await threadwise.create_glossary(
                "o", name="n", source="en", target="es", entries={"a": "b"}
            )
    assert len(server.requests) == 2  # the connect error was retried, the read error not


def test_backoff_is_full_jitter_under_a_cap() -> None:
    top = RetryPolicy(base_seconds=0.5, max_seconds=4.0, random=lambda: 1.0)
    assert [top.backoff(r) for r in range(5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    assert RetryPolicy(random=lambda: 0.0).backoff(3) == 0.0


def test_retry_after_in_seconds_or_as_a_date() -> None:
    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    assert retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_a_socket_error_frame_may_say_how_long_to_wait() -> None:
    frame = envelope_error("OVERLOADED", True)
    frame["error"]["retryAfter"] = 4
    assert ThreadwiseError.from_reply(json.loads(json.dumps(frame))).retry_after == 4.0


def test_at_least_one_attempt() -> None:
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=0)
