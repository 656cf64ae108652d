"""A checked English summary translated, sentence by sentence, into the language asked for."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from tests.conftest import minimal_body
from tests.scripted_engine import ScriptedEngine
from threadwise.deadlines import Deadline
from threadwise.engines.machine import TranslationEngineError
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, MessageBody
from threadwise.superpowers.summarize.job import plan
from threadwise.superpowers.summarize.output_language import summary_machines, translate_summary
from threadwise.superpowers.summarize.run import Run, Summary
from threadwise.superpowers.summarize.streaming import DraftStream
from threadwise.text.languages import LanguageIdentifier
from threadwise.text.tagged import Parts, text_of

DRAFT = "Bo sends Ana a new parcel. Ana waits for it."
DRAFT_SENTENCES = ["Bo sends Ana a new parcel.", "Ana waits for it."]
SPANISH_WORDS = {"envía", "espera", "paquete", "nuevo"}


class WordsIdentifier(LanguageIdentifier):
    """Spanish when a text has one of a few Spanish words, else English."""

    def detect(self, text: str) -> str | None:
        return "es" if SPANISH_WORDS & set(re.findall(r"\w+", text.lower())) else "en"


IDENTIFIER = WordsIdentifier()


def spanish_run(stream: DraftStream | None = None) -> Run:
    data = minimal_body()
    data["session"]["channel"]["language"] = "es"
    job = plan(MessageBody.model_validate(data), IDENTIFIER)
    return Run(job, Deadline(60), Summary(DRAFT, "es", "scripted:test"), stream)


def translated(run: Run, *replies: str) -> tuple[str, ScriptedEngine]:
    engine = ScriptedEngine(list(replies))
    return translate_summary(run, DRAFT, engine, IDENTIFIER, "Translate."), engine


def test_each_sentence_is_translated_side_by_side() -> None:
    run = spanish_run()
    text, engine = translated(run, "Bo envía a Ana un paquete nuevo.", "Ana lo espera.")
    assert text == "Bo envía a Ana un paquete nuevo. Ana lo espera."
    assert len(engine.chats) == 2 and "Bo sends Ana a new parcel." in engine.chats[0][1]["content"]
    assert run.summary.steps == ["translate", "translate"]
    assert run.summary.prompt_tokens == 20


def test_a_sentence_that_gains_a_number_or_stays_english_is_asked_again() -> None:
    run = spanish_run()
    text, engine = translated(
        run,
        "Bo envía a Ana 3 paquetes.",  # a number the conversation never had
        "Ana waits for it.",  # still English
        "Bo envía a Ana un paquete nuevo.",
        "Ana lo espera.",
    )
    assert text == "Bo envía a Ana un paquete nuevo. Ana lo espera."
    assert len(engine.chats) == 4
    assert run.summary.steps[2:] == ["translate again", "translate again"]


def test_a_sentence_wrong_twice_is_dropped_and_said_so() -> None:
    run = spanish_run()
    text, _ = translated(
        run, "Bo envía a Ana un paquete nuevo.", "Ana waits.", "Ana still waits for it."
    )
    assert text == "Bo envía a Ana un paquete nuevo."
    assert run.summary.steps[-1] == "dropped 1 translated sentences"


def test_a_summary_not_in_the_language_is_a_retryable_failure() -> None:
    run = spanish_run()
    with pytest.raises(ServiceError) as raised:
        translated(run, "Bo sends it.", "Ana waits.", "Bo sends it.", "Ana waits.")
    assert raised.value.code is ErrorCode.PROCESSING_FAILED
    assert "Spanish" in raised.value.message


def test_the_translation_is_streamed_when_nothing_was_yet() -> None:
    sent: list[str] = []
    run = spanish_run(DraftStream(sent.append))
    translated(run, "Bo envía a Ana un paquete nuevo.", "Ana lo espera.")
    assert sent == ["Bo envía a Ana un paquete nuevo. Ana lo espera."]


KNOWN = {"Bo sends Ana a new parcel.": "Bo envía a Ana un paquete nuevo."}


class FakeMachine:
    """A machine engine into Spanish that knows two sentences."""

    kind = "fake"

    def __init__(self, lose_a_number: bool = False, fail: bool = False) -> None:
        self.asked: list[str] = []
        self.lose_a_number = lose_a_number
        self.fail = fail

    def directions(self) -> frozenset[tuple[str, str]]:
        return frozenset({("en", "es")})

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        return f"fake:{source}-{target}"

    def load(self) -> None: ...

    def close(self) -> None: ...

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
    ) -> list[Parts | None]:
        if self.fail:
            raise TranslationEngineError("the pipeline died twice")
        texts = [text_of(s) for s in segments]
        self.asked.extend(texts)
        return [
            (("Bo envía 2 paquetes." if self.lose_a_number else KNOWN[t]),)
            if t in KNOWN
            else ("Ana lo espera.",)
            for t in texts
        ]


def test_a_machine_engine_translates_where_it_was_measured_better() -> None:
    run = spanish_run()
    machine = FakeMachine()
    engine = ScriptedEngine([])
    text = translate_summary(run, DRAFT, engine, IDENTIFIER, "Translate.", machine)
    assert text == "Bo envía a Ana un paquete nuevo. Ana lo espera."
    assert machine.asked == DRAFT_SENTENCES and engine.chats == []
    assert run.summary.steps == ["translated by fake:en-es"]


def test_a_machine_sentence_that_gains_a_number_is_asked_of_the_model() -> None:
    run = spanish_run()
    engine = ScriptedEngine(["Bo envía a Ana un paquete nuevo."])
    text = translate_summary(run, DRAFT, engine, IDENTIFIER, "Translate.", FakeMachine(True))
    assert text == "Bo envía a Ana un paquete nuevo. Ana lo espera."
    assert len(engine.chats) == 1 and "Bo sends Ana" in engine.chats[0][1]["content"]


def test_a_machine_engine_is_chosen_where_the_model_measured_below_good() -> None:
    apertium = FakeMachine()
    table = {
        "directions": {
            "en-es": {"candidates": {"llm": {"chrF": 51.1}, "fake": {"chrF": 46.5}}},
            "en-gl": {"candidates": {"llm": {"chrF": 32.9}, "fake": {"chrF": 47.3}}},
        }
    }
    apertium.directions = lambda: frozenset({("en", "es"), ("en", "gl")})  # type: ignore[method-assign]
    assert summary_machines({"fake": apertium}, table) == {"gl": apertium}
    assert summary_machines({"fake": FakeMachine()}, table) == {}  # not installed


def test_a_failed_machine_engine_leaves_the_summary_to_the_model() -> None:
    run = spanish_run()
    engine = ScriptedEngine(["Bo envía a Ana un paquete nuevo.", "Ana lo espera."])
    text = translate_summary(run, DRAFT, engine, IDENTIFIER, "Translate.", FakeMachine(fail=True))
    assert text == "Bo envía a Ana un paquete nuevo. Ana lo espera."
    assert len(engine.chats) == 2
