"""The summarize superpower around its pipeline: messages in another language are read in
English for the checks (the model scripted, the reader a fake)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from tests.scripted_engine import ScriptedEngine
from tests.superpowers.summarize.test_pipeline import body_with
from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.engines.profiles import Profiles
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.superpowers.summarize import Summarizer
from threadwise.superpowers.summarize.superpower import (
    QueuedSummarizer,
    Reader,
    SummarizeSuperpower,
)
from threadwise.text.languages import LanguageIdentifier
from threadwise.work_queue import Scheduler

SPANISH = "Hola, me cobraron dos veces la factura de este mes."
READING = "Hello, they charged me twice the bill of this month."
BODY = body_with(
    [
        ("c", SPANISH),
        ("a", "Hi Lucía, sorry about that. I see both charges and I will refund one today."),
        ("c", "Perfecto, muchas gracias."),
    ],
    {"c": "Lucía", "a": "Daniel"},
    {"c": "EndUser", "a": "Agent"},
)
AGENT = BODY["request"]["scope"]["conversations"][0]["messages"][1]["content"]
# What the model writes: right, but in the agent's words only.
DRAFT = "Lucía asks Daniel to refund her two charges for the same invoice."


@pytest.fixture(scope="module")
def identifier() -> LanguageIdentifier:
    return LanguageIdentifier()


def summarize(identifier: LanguageIdentifier, reader: Reader | None) -> tuple[str, str]:
    """The summary, and the prompt the model was given."""
    engine = ScriptedEngine([DRAFT])
    queue = Scheduler(capacity=4, name="test")
    superpower = SummarizeSuperpower(
        Profiles(QueuedSummarizer(Summarizer(engine, identifier), queue)),
        DeadlinePolicy(base=30, per_thousand_characters=0, ceiling=30),
        reader=reader,
    )
    [item] = asyncio.run(superpower(parse_message_body(BODY, PayloadLimits())))
    return item.content, engine.chats[0][1]["content"]


def test_messages_in_another_language_are_read_in_english(
    identifier: LanguageIdentifier,
) -> None:
    asked: list[tuple[list[str], list[int]]] = []

    async def reader(
        texts: Sequence[str], conversations: Sequence[int], deadline: Deadline
    ) -> list[str | None]:
        asked.append((list(texts), list(conversations)))
        return [READING if text == SPANISH else None for text in texts]

    summary, prompt = summarize(identifier, reader)
    assert asked == [([SPANISH, AGENT, "Perfecto, muchas gracias."], [0, 0, 0])]
    # The model reads what was written; the check finds the customer's words in the reading.
    assert SPANISH in prompt and READING not in prompt
    assert summary == DRAFT


def test_without_readings_the_check_gives_the_request_to_who_said_its_words(
    identifier: LanguageIdentifier,
) -> None:
    summary, prompt = summarize(identifier, None)
    assert SPANISH in prompt
    assert summary == "Daniel asks Lucía to refund her two charges for the same invoice."
