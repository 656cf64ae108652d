"""The remote engine against a real model server: llama-cpp-python's, with the small packaged
model on 127.0.0.1. Properties only, never the model's wording."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scripts.model_server import ALIAS
from threadwise.config import RemoteEngine
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.engines.remote import RemoteChatEngine
from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.engines.remote.servers import estimate_tokens
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

pytestmark = pytest.mark.model

COUNT: list[ChatMessage] = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Count from 1 to 200, one number a line."},
]


@pytest.fixture(scope="module")
def engine(llama_server_url: str) -> Iterator[RemoteChatEngine]:
    built = RemoteChatEngine(
        RemoteEngine(url=llama_server_url, concurrency=2),
        context_size=4096,
        breaker=CircuitBreaker(failures=3, cooldown=5),
    )
    built.load()
    yield built
    built.close()


def test_the_server_is_recognized_and_its_model_named(engine: RemoteChatEngine) -> None:
    assert engine.server_kind == "llama-cpp-python"
    assert engine.name.startswith(f"openai:{ALIAS}@127.0.0.1:")
    assert engine.unavailable is None
    # Its tokenizer waits for the model's lock: counts are estimated.
    assert engine.count_tokens("Order 4417 arrived.") == estimate_tokens("Order 4417 arrived.")


def test_streamed_pieces_make_the_answer_begun_by_the_caller(engine: RemoteChatEngine) -> None:
    pieces: list[str] = []
    completion = engine.chat(
        COUNT, max_tokens=12, continue_from="1.", stop=["\n4."], on_text=pieces.append
    )
    assert completion.text.startswith("1.")
    assert completion.text == ("1." + "".join(pieces)).strip()
    assert "\n4." not in completion.text
    assert 0 < completion.completion_tokens <= 12 and completion.prompt_tokens > 0


def test_several_chats_side_by_side_answer_in_order(engine: RemoteChatEngine) -> None:
    chats: list[list[ChatMessage]] = [
        [{"role": "user", "content": f"Repeat the word {word}, once."}]
        for word in ("apple", "river", "stone")
    ]
    done = engine.chat_many(chats, max_tokens=[6, 6, 6], deadline=Deadline(120))
    assert len(done) == 3 and all(c.text and c.completion_tokens <= 6 for c in done)


def test_a_deadline_ends_the_request_and_the_server_answers_the_next(
    engine: RemoteChatEngine,
) -> None:
    engine.chat(COUNT, max_tokens=2)  # the prompt is in the server's cache: it writes at once
    with pytest.raises(ServiceError) as late:
        engine.chat(COUNT, max_tokens=1000, deadline=Deadline(1.0))
    assert late.value.code is ErrorCode.REQUEST_TIMEOUT
    assert engine.chat(COUNT, max_tokens=3, deadline=Deadline(120)).text
