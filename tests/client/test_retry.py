"""RetryPolicy and the retries of ThreadwiseClient's calls: over a fake HTTP transport, which
answers are retried, how long each wait is, the bounds, one idempotency key per call; against a
live server, a lost answer asked again with its key (charged once) and a rate limit waited out."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from tests.client.live import ENGLISH, new_account
from tests.clock import ManualClock
from tests.conftest import LiveServer
from threadwise.auth.ratelimit import InProcessRateLimiter
from threadwise.client import RetryPolicy, ThreadwiseClient, ThreadwiseError
from threadwise.client.bodies import message_body
from threadwise.client.errors import retry_after_seconds
from threadwise.client.retry import NEVER, with_retries
from threadwise.services import Services

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


# --- against a live server -----------------------------------------------------------------


class LosesTheFirstAnswer(httpx2.AsyncBaseTransport):
    """A real connection whose first superpower answer is lost after the server sent it, as
    when a connection drops: the server did the work, the client never saw it."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.lost: list[dict[str, Any]] = []
        self.keys: list[str | None] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if not request.url.path.startswith("/message/"):
            return response
        self.keys.append(request.headers.get("Idempotency-Key"))
        if self.lost:
            return response
        self.lost.append(json.loads(await response.aread()))
        await response.aclose()
        raise httpx2.ReadError("the connection dropped before the answer came", request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_lost_answer_is_asked_again_with_its_key_and_charged_once(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    transport = LosesTheFirstAnswer()
    body = message_body(
        [{"messages": [{"content": ENGLISH}]}],
        account.organization,
        {"targetLanguages": ["es"], "translationMode": "fast"},
    )
    async with account.client(transport=transport, retry=RetryPolicy(base_seconds=0)) as threadwise:
        envelope = await threadwise.call("translate", body)
        usage = await threadwise.usage(account.organization)
    assert envelope == transport.lost[0]  # the first request's answer, given again
    assert "7781" in envelope["message"]["results"][0]["response"][0]["content"]
    assert len(transport.keys) == 2 and transport.keys[0] == transport.keys[1]
    assert usage.requests == 1 and usage.characters_translated == len(ENGLISH)


async def test_a_rate_limit_is_waited_out_then_admitted(
    live_server: LiveServer, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = new_account(live_server, services, requests_per_minute=1)
    limiter = services.auth.gate.limiter
    assert isinstance(limiter, InProcessRateLimiter)
    skew = 0
    monkeypatch.setattr(limiter, "clock", lambda: time.monotonic_ns() + skew)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the limiter's time passes, not the test's
        nonlocal skew
        waits.append(seconds)
        skew += int(seconds * 1e9)

    policy = RetryPolicy(max_retry_after=120)
    async with account.client(retry=policy, sleep=sleep) as threadwise:
        for _ in range(2):
            [translation] = await threadwise.translate(
                ENGLISH, organization=account.organization, targets="es", mode="fast"
            )
            assert "7781" in translation.text
        usage = await threadwise.usage(account.organization)
    # The second call was refused (429 RATE_LIMITED) and sent again after its Retry-After.
    assert len(waits) == 1 and 1 <= waits[0] <= 60
    assert usage.requests == 2


async def test_a_socket_request_sent_again_with_its_key_is_answered_once(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    body = message_body(
        [{"messages": [{"content": ENGLISH}]}],
        account.organization,
        {"targetLanguages": ["es"], "translationMode": "fast"},
    )
    async with account.client() as threadwise:
        async with threadwise.connect() as socket:
            first = await socket.request("translate", body, idempotency_key="key-1")
        async with threadwise.connect() as socket:  # as a retry on a new connection would
            again = await socket.request("translate", body, idempotency_key="key-1")
        usage = await threadwise.usage(account.organization)
    assert first["message"] == again["message"]
    assert usage.requests == 1


async def test_a_socket_error_frame_says_how_long_to_wait(
    live_server: LiveServer, services: Services
) -> None:
    """A WebSocket frame has no Retry-After header: its error carries ``retryAfter``."""
    account = new_account(live_server, services, requests_per_minute=1)
    body = message_body(
        [{"messages": [{"content": ENGLISH}]}],
        account.organization,
        {"targetLanguages": ["es"], "translationMode": "fast"},
    )
    async with account.client(retry=NEVER) as threadwise, threadwise.connect() as socket:
        await socket.request("translate", body)
        with pytest.raises(ThreadwiseError) as refused:
            await socket.request("translate", body)
    assert refused.value.code == "RATE_LIMITED" and refused.value.retryable
    assert refused.value.retry_after is not None and 1 <= refused.value.retry_after <= 60
