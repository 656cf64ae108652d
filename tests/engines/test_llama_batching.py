"""Continuous batching against the real default model: calls from several threads decoded
side by side answer as each would alone, and each leaves on its own terms."""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from threadwise.config import Settings
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.model_files import DEFAULT_MODEL, prepare_model
from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.protocol import ErrorCode
from threadwise.services import Services, build_services

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("loaded_engines")]

COUNTING: list[ChatMessage] = [
    {"role": "user", "content": "Write the numbers 1 to 9, one per line, nothing else."}
]


def _question(text: str) -> list[ChatMessage]:
    return [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": text}]


QUESTIONS = {
    "What colour is the sky on a clear day?": "blue",
    "What colour is fresh grass?": "green",
    "What colour is fresh snow?": "white",
}


@pytest.fixture(scope="module")
def batched(settings: Settings) -> Iterator[LlamaCppEngine]:
    """A second instance of the default model, serving two requests at once; its batches
    smaller than the batcher's prompt chunk and the others' tokens (llama.cpp would abort
    the process on a larger one)."""
    path = prepare_model(DEFAULT_MODEL, settings.model_dir, lambda _: None)
    engine = LlamaCppEngine(
        path, context_size=2048, threads=settings.llm_threads, batch_size=64, batching=2
    )
    engine.load()
    yield engine
    engine.close()


def test_calls_from_several_threads_answer_as_each_alone(
    batched: LlamaCppEngine, services: Services
) -> None:
    chats = [_question(q) for q in QUESTIONS]
    with ThreadPoolExecutor(len(chats)) as pool:
        together = list(pool.map(lambda chat: batched.chat(chat, max_tokens=5), chats))
    for word, answer, chat in zip(QUESTIONS.values(), together, chats, strict=True):
        alone = services.engine.chat(chat, max_tokens=5)
        assert word in answer.text.lower() and answer.text == alone.text, (answer, alone)
        assert 1 <= answer.completion_tokens <= 5
        assert answer.prompt_tokens == alone.prompt_tokens


def test_stops_budgets_and_more_sequences_than_slots(batched: LlamaCppEngine) -> None:
    done = batched.chat_many(
        [COUNTING] * 10,  # more than the context's sequences: the rest wait for a slot
        max_tokens=[40, 3, 40, 40, 40, 40, 40, 40, 40, 40],
        continue_from="1",
        stops=[["\n4"], [], ["\n3"], ["\n6"], ["\n2"], *[["\n4"]] * 5],
    )
    assert done[0].text.split() == ["1", "2", "3"] and not done[0].truncated
    assert done[1].truncated and done[1].completion_tokens == 3
    assert done[2].text.split() == ["1", "2"]
    assert done[3].text.split() == ["1", "2", "3", "4", "5"]
    assert done[4].text.split() == ["1"]
    assert all(d.text.split() == ["1", "2", "3"] for d in done[5:])


def test_the_answer_streams_as_it_is_written(batched: LlamaCppEngine) -> None:
    pieces: list[str] = []
    done = batched.chat(
        COUNTING, max_tokens=40, continue_from="1", stop=["\n4"], on_text=pieces.append
    )
    assert "".join(pieces) == done.text.removeprefix("1")
    assert "\n4" not in "".join(pieces)


def test_a_cancelled_call_leaves_and_the_others_go_on(batched: LlamaCppEngine) -> None:
    deadline = Deadline(120)
    started = threading.Event()
    long_chat: list[ChatMessage] = [{"role": "user", "content": "Count from 1 to 200."}]

    def cancelled() -> None:
        def on_text(_: str) -> None:
            started.set()

        batched.chat(long_chat, max_tokens=400, deadline=deadline, on_text=on_text)

    with ThreadPoolExecutor(2) as pool:
        doomed = pool.submit(cancelled)
        assert started.wait(120)
        deadline.cancelled = True
        other = batched.chat(_question("What colour is fresh grass?"), max_tokens=5)
        with pytest.raises(ServiceError) as caught:
            doomed.result(timeout=120)
    assert caught.value.code is ErrorCode.REQUEST_CANCELLED
    assert "green" in other.text.lower()
    with pytest.raises(ServiceError) as late:
        batched.chat(_question("Name a fruit."), max_tokens=5, deadline=Deadline(0))
    assert late.value.code is ErrorCode.REQUEST_TIMEOUT


def test_a_prompt_longer_than_the_context_is_refused(batched: LlamaCppEngine) -> None:
    huge: list[ChatMessage] = [{"role": "user", "content": "word " * 5000}]
    with pytest.raises(ServiceError) as caught:
        batched.chat(huge, max_tokens=5)
    assert caught.value.code is ErrorCode.PROCESSING_FAILED
    assert (
        "blue"
        in batched.chat(
            _question("What colour is the sky on a clear day?"), max_tokens=5
        ).text.lower()
    )


def test_summaries_of_two_requests_at_once_through_the_service(
    settings: Settings, support_chat: dict[str, Any], tmp_path: Path
) -> None:
    """``THREADWISE_LLM_BATCHING=2``: the model's queue runs two requests at once, and their
    summaries are what one at a time would write (the invoice number kept)."""
    built = build_services(settings.model_copy(update={"llm_batching": 2, "data_dir": tmp_path}))
    built.start()
    try:
        assert built.wait_loaded(300) and built.load_error is None

        async def both() -> list[Any]:
            bodies = [copy.deepcopy(support_chat) for _ in range(2)]
            return await asyncio.gather(
                *(built.summarize(parse_message_body(b, PayloadLimits())) for b in bodies)
            )

        for [item] in asyncio.run(both()):
            assert "INV-10443" in item.content, item.content
    finally:
        built.close()


def test_a_long_prompt_is_read_in_chunks_beside_another_answer(batched: LlamaCppEngine) -> None:
    numbers = " ".join(str(n) for n in range(300, 420))  # ~360 tokens: several batches
    long_prompt = _question(f"Here are numbers: {numbers}. What colour is fresh snow?")
    with ThreadPoolExecutor(2) as pool:
        counting = pool.submit(
            batched.chat, COUNTING, max_tokens=40, continue_from="1", stop=["\n6"]
        )
        snow = batched.chat(long_prompt, max_tokens=5)
    assert snow.prompt_tokens > 300 and "white" in snow.text.lower(), snow
    assert counting.result().text.split() == ["1", "2", "3", "4", "5"]
