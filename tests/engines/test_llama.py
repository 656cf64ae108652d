"""The llama.cpp engine against the real default model."""

from __future__ import annotations

import pytest

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.services import Services

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("loaded_engines")]


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


def _question(text: str) -> list[ChatMessage]:
    return [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": text}]


def test_chats_decoded_side_by_side_answer_as_each_alone(services: Services) -> None:
    questions = [
        "What colour is the sky on a clear day?",
        "What colour is fresh grass?",
        "What colour is fresh snow?",
    ]
    chats = [_question(q) for q in questions]
    together = services.engine.chat_many(chats, max_tokens=[5, 5, 5])
    alone = [services.engine.chat(chat, max_tokens=5) for chat in chats]
    for word, side, single in zip(["blue", "green", "white"], together, alone, strict=True):
        assert word in side.text.lower() and word in single.text.lower(), (side, single)
        assert 1 <= side.completion_tokens <= 5 and side.prompt_tokens > 10
    # The context is left usable: a plain call after answers as before.
    assert "blue" in services.engine.chat(chats[0], max_tokens=5).text.lower()


def test_side_by_side_stops_budgets_and_rounds_of_more_than_four(services: Services) -> None:
    counting: list[ChatMessage] = [
        {"role": "user", "content": "Write the numbers 1 to 9, one per line, nothing else."}
    ]
    chats = [counting] * 5  # two rounds: four side by side, then one alone
    done = services.engine.chat_many(
        chats,
        max_tokens=[40, 3, 40, 40, 40],
        continue_from="1",
        stops=[["\n4"], [], ["\n3"], ["\n6"], ["\n2"]],
    )
    assert done[0].text.split() == ["1", "2", "3"] and not done[0].truncated
    assert done[1].truncated and done[1].completion_tokens == 3
    assert done[2].text.split() == ["1", "2"]
    assert done[3].text.split() == ["1", "2", "3", "4", "5"]
    assert done[4].text.split() == ["1"]


def test_side_by_side_obeys_the_deadline(services: Services) -> None:
    deadline = Deadline(60)
    deadline.cancelled = True
    with pytest.raises(ServiceError) as caught:
        services.engine.chat_many(
            [_question("Name a colour."), _question("Name a fruit.")],
            max_tokens=[20, 20],
            deadline=deadline,
        )
    assert caught.value.code is ErrorCode.REQUEST_CANCELLED
    assert "blue" in services.engine.chat(CHAT, max_tokens=5).text.lower()
