"""The llama.cpp engine against the real default model."""

from __future__ import annotations

import pytest

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.services import Services

pytestmark = pytest.mark.model

CHAT: list[ChatMessage] = [
    {"role": "system", "content": "Answer in one word."},
    {"role": "user", "content": "What colour is the sky on a clear day?"},
]


def test_chat_answers_and_counts_tokens(services: Services) -> None:
    services.engine.load()
    completion = services.engine.chat(CHAT, max_tokens=5)
    assert "blue" in completion.text.lower()
    assert completion.prompt_tokens > 10
    assert 1 <= completion.completion_tokens <= 5
    assert services.engine.count_tokens("order 4417 arrived") >= 3


def test_on_text_streams_the_answer_as_it_is_written(services: Services) -> None:
    pieces: list[str] = []
    completion = services.engine.chat(CHAT, max_tokens=5, on_text=pieces.append)
    assert "blue" in completion.text.lower()
    assert "".join(pieces).strip() == completion.text
    assert 1 <= completion.completion_tokens <= 5 and completion.prompt_tokens > 10


def test_max_tokens_marks_the_answer_truncated(services: Services) -> None:
    long_chat: list[ChatMessage] = [{"role": "user", "content": "Count from 1 to 50."}]
    completion = services.engine.chat(long_chat, max_tokens=4)
    assert completion.truncated
    assert completion.completion_tokens == 4


def test_generation_ends_before_a_stop_sequence(services: Services) -> None:
    counting: list[ChatMessage] = [
        {"role": "user", "content": "Write the numbers 1 to 9, one per line, nothing else."}
    ]
    completion = services.engine.chat(counting, max_tokens=40, continue_from="1", stop=["\n4"])
    assert completion.text.split() == ["1", "2", "3"], completion.text
    assert not completion.truncated


def test_cancelled_generation_stops_and_says_why(services: Services) -> None:
    deadline = Deadline(60)
    deadline.cancelled = True
    with pytest.raises(ServiceError) as caught:
        services.engine.chat(CHAT, max_tokens=50, deadline=deadline)
    assert caught.value.code is ErrorCode.REQUEST_CANCELLED


def test_expired_deadline_is_a_timeout(services: Services) -> None:
    with pytest.raises(ServiceError) as caught:
        services.engine.chat(CHAT, max_tokens=50, deadline=Deadline(0))
    assert caught.value.code is ErrorCode.REQUEST_TIMEOUT
