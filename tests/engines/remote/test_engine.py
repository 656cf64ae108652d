"""The remote engine against a scripted server, for what a real one cannot be made to do on
demand: 429 and 503, a stream dropped halfway, a server that stops answering. The engine
against llama-cpp-python's real server is tested in ``test_llama_server.py``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from scripts.model_server import free_port
from tests.conftest import eventually
from tests.engines.remote.fake_server import MODEL, FakeServer, Refuse, Stream
from threadwise.config import RemoteEngine
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.engines.metering import metering
from threadwise.engines.remote import RemoteChatEngine
from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

CHAT: list[ChatMessage] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Say hello."},
]


def engine_for(url: str, *, cooldown: float = 30.0, **server: Any) -> RemoteChatEngine:
    return RemoteChatEngine(
        RemoteEngine(url=url, **server),
        context_size=4096,
        breaker=CircuitBreaker(failures=3, cooldown=cooldown),
    )


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with FakeServer().running() as server:
        yield server


@pytest.fixture
def engine(fake: FakeServer) -> Iterator[RemoteChatEngine]:
    built = engine_for(fake.url, api_key=SecretStr("sk-test"), concurrency=2)
    built.load()
    yield built
    built.close()


def test_a_streamed_answer_is_passed_on_as_it_comes(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    pieces: list[str] = []
    threads: set[str] = set()

    def on_text(piece: str) -> None:
        pieces.append(piece)
        threads.add(threading.current_thread().name)

    completion = engine.chat(CHAT, max_tokens=20, on_text=on_text)
    assert completion.text == "Hello there." and not completion.truncated
    assert pieces == ["Hello", " there."] and threads == {threading.current_thread().name}
    assert completion.prompt_tokens > 0 and completion.completion_tokens == 2
    [sent] = fake.seen.requests
    assert sent["stream"] is True and sent["max_tokens"] == 20 and sent["model"] == MODEL
    assert sent["messages"] == CHAT
    assert fake.seen.headers[0]["Authorization"] == "Bearer sk-test"
    assert engine.name == f"openai:{MODEL}@127.0.0.1:{fake.port}"
    assert engine.server_kind == "openai"


def test_an_answer_begun_by_the_caller_on_a_server_that_cannot_continue(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    """Asked in the instruction; the start it repeats is not repeated in the answer."""
    fake.script = [Stream(("Summ", "ary:", " Ana", " waits.")), Stream(("Ana waits.",))]
    pieces: list[str] = []
    first = engine.chat(CHAT, max_tokens=20, continue_from="Summary:", on_text=pieces.append)
    second = engine.chat(CHAT, max_tokens=20, continue_from="Summary:")
    assert first.text == second.text == "Summary: Ana waits."
    assert "".join(pieces) == " Ana waits."
    asked = fake.seen.requests[0]["messages"]
    assert asked[-1]["role"] == "user" and '"Summary:"' in asked[-1]["content"]


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("llama.cpp", {"cache_prompt": True}),
        ("vllm", {"continue_final_message": True, "add_generation_prompt": False}),
    ],
)
def test_servers_that_continue_an_answer_are_asked_to(
    fake: FakeServer, kind: str, fields: dict[str, Any]
) -> None:
    """llama.cpp's and vLLM's servers continue a trailing assistant message, and count
    tokens with the model's own tokenizer."""
    engine = engine_for(fake.url, server=kind)
    try:
        engine.load()
        fake.script = [Stream((" Ana", " waits."))]
        assert engine.chat(CHAT, max_tokens=9, continue_from="Summary:").text == (
            "Summary: Ana waits."
        )
        [sent] = fake.seen.requests
        assert sent["messages"] == [*CHAT, {"role": "assistant", "content": "Summary:"}]
        assert fields.items() <= sent.items()
        assert engine.count_tokens("three short words") == 3
        assert engine.count_tokens("three short words") == 3
        assert fake.seen.tokenized == ["three short words"]  # asked once
    finally:
        engine.close()


def test_busy_answers_are_retried_after_their_retry_after(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Refuse(429, {"Retry-After": "0.3"}), Refuse(503), Stream()]
    started = time.monotonic()
    completion = engine.chat(CHAT, max_tokens=20, deadline=Deadline(30))
    assert completion.text == "Hello there."
    assert len(fake.seen.requests) == 3
    assert time.monotonic() - started >= 0.3
    assert engine.unavailable is None  # busy is not down


def test_busy_past_the_deadline_is_overloaded_with_its_retry_after(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Refuse(503, {"Retry-After": "5"})] * 3
    with pytest.raises(ServiceError) as refused:
        engine.chat(CHAT, max_tokens=20, deadline=Deadline(2))
    assert refused.value.code is ErrorCode.OVERLOADED and refused.value.reason == "engine_busy"
    assert refused.value.retry_after == 5
    assert len(fake.seen.requests) == 1  # it would not wait 5 s of a 2 s deadline


def test_a_refusal_names_the_setting_to_check_and_never_the_key(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Refuse(401, body='{"error": {"message": "Incorrect API key: sk-test"}}')]
    with pytest.raises(ServiceError) as refused:
        engine.chat(CHAT, max_tokens=5)
    assert refused.value.code is ErrorCode.PROCESSING_FAILED
    assert "THREADWISE_LLM_API_KEY" in refused.value.message
    assert "sk-test" not in refused.value.message and "***" in refused.value.message


def test_a_stream_dropped_before_any_text_is_asked_again(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Stream(drop=0), Stream()]
    assert engine.chat(CHAT, max_tokens=20, deadline=Deadline(30)).text == "Hello there."
    assert len(fake.seen.requests) == 2


def test_a_stream_dropped_halfway_that_nobody_saw_is_asked_again(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Stream(("Hello", " there", " again."), drop=2), Stream()]
    assert engine.chat(CHAT, max_tokens=20, deadline=Deadline(30)).text == "Hello there."
    assert len(fake.seen.requests) == 2


def test_a_stream_dropped_after_text_was_passed_on_fails_the_request(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Stream(("Hello", " there", " again."), drop=2)]
    pieces: list[str] = []
    with pytest.raises(ServiceError) as failed:
        engine.chat(CHAT, max_tokens=20, on_text=pieces.append)
    assert failed.value.code is ErrorCode.PROCESSING_FAILED
    assert "mid-stream" in failed.value.message
    assert "".join(pieces) == "Hello there"
    assert len(fake.seen.requests) == 1  # not asked again: the caller saw part of it


def test_a_cancelled_request_closes_its_stream(fake: FakeServer, engine: RemoteChatEngine) -> None:
    fake.script = [Stream(tuple(f" {n}" for n in range(200)), delay=0.05)]
    deadline = Deadline(60)
    pieces: list[str] = []

    def cancel_once_writing(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            deadline.cancel()

    with pytest.raises(ServiceError) as cancelled:
        engine.chat(CHAT, max_tokens=500, deadline=deadline, on_text=cancel_once_writing)
    assert cancelled.value.code is ErrorCode.REQUEST_CANCELLED
    assert fake.seen.abandoned.wait(5)  # the server saw the connection go
    assert len(pieces) < 20


def test_requests_in_flight_are_limited_to_the_concurrency(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Stream(("a", "b", "c"), delay=0.1) for _ in range(5)]
    chats: list[list[ChatMessage]] = [
        [CHAT[0], {"role": "user", "content": f"Say {n}."}] for n in range(5)
    ]
    done = engine.chat_many(chats, max_tokens=[5] * 5, deadline=Deadline(30))
    assert [c.text for c in done] == ["abc"] * 5
    assert fake.seen.most_in_flight == 2
    assert sorted(r["messages"][-1]["content"] for r in fake.seen.requests) == [
        f"Say {n}." for n in range(5)
    ]


def test_the_callers_meter_is_charged_for_every_answer(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    # The requests run on the engine's own loop and thread; the tokens reach the caller's meter.
    with metering() as meter:
        one = engine.chat(CHAT, max_tokens=20)
        many = engine.chat_many([CHAT, CHAT], max_tokens=[20, 20])
    answers = [one, *many]
    assert meter.prompt_tokens == sum(c.prompt_tokens for c in answers) > 0
    assert meter.completion_tokens == sum(c.completion_tokens for c in answers) == 6


def test_generation_is_capped_at_what_the_time_left_allows(
    fake: FakeServer, engine: RemoteChatEngine
) -> None:
    fake.script = [Stream(tuple(f" {n}" for n in range(40)), delay=0.005)]
    engine.chat(CHAT, max_tokens=100)  # measures how fast the server writes
    engine.chat(CHAT, max_tokens=100_000, deadline=Deadline(10))
    capped = fake.seen.requests[-1]["max_tokens"]
    assert 16 < capped < 100_000


def test_a_server_that_is_down_fails_fast_until_a_probe_finds_it() -> None:
    port = free_port()
    engine = engine_for(f"http://127.0.0.1:{port}/v1", cooldown=0.2)
    try:
        engine.load()  # nothing listens: the breaker opens rather than the start failing
        assert engine.unavailable is not None and f"127.0.0.1:{port}" in engine.unavailable
        assert engine.breaker.open  # so a request fails at once, without trying
        with pytest.raises(ServiceError) as down:
            engine.chat(CHAT, max_tokens=5, deadline=Deadline(30))
        assert down.value.code is ErrorCode.OVERLOADED and down.value.reason == "engine_down"
        assert down.value.retry_after is not None and down.value.retry_after >= 1
        with FakeServer(port).running():
            # The half-open probe finds it.
            eventually(lambda: engine.unavailable is None, 10, "the probe did not find the server")
            assert engine.chat(CHAT, max_tokens=5, deadline=Deadline(30)).text == "Hello there."
            assert engine.name == f"openai:{MODEL}@127.0.0.1:{port}"
    finally:
        engine.close()


def test_connection_failures_in_a_row_open_the_breaker(fake: FakeServer) -> None:
    engine = engine_for(fake.url)
    engine.load()
    fake.script = [Stream(drop=0)] * 3
    try:
        with pytest.raises(ServiceError) as down:
            engine.chat(CHAT, max_tokens=5, deadline=Deadline(30))
        assert down.value.code is ErrorCode.OVERLOADED and down.value.reason == "engine_down"
        assert len(fake.seen.requests) == 3  # then it stopped asking
        assert engine.unavailable is not None
    finally:
        engine.close()


def test_closing_the_engine_ends_the_requests_in_flight(fake: FakeServer) -> None:
    engine = engine_for(fake.url)
    engine.load()
    fake.script = [Stream(tuple(f" {n}" for n in range(200)), delay=0.05)]
    failures: list[ServiceError] = []
    writing = threading.Event()

    def ask() -> None:
        try:
            engine.chat(CHAT, max_tokens=500, on_text=lambda _: writing.set())
        except ServiceError as exc:
            failures.append(exc)

    caller = threading.Thread(target=ask)
    caller.start()
    assert writing.wait(10)
    engine.close()
    caller.join(timeout=5)
    assert not caller.is_alive()
    [failure] = failures
    assert failure.code is ErrorCode.PROCESSING_FAILED and "shutting down" in failure.message
