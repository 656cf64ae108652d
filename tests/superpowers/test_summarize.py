"""The summarize pipeline's logic, on a scripted engine; tests/api has it on the real model."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from tests.conftest import minimal_body
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage, Completion, one_by_one
from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.protocol import ErrorCode
from threadwise.superpowers import prompts
from threadwise.superpowers.summarize import (
    Answer,
    DraftStream,
    Summarizer,
    SummaryOptions,
    concise,
    fit_length,
    parse_answer,
    render,
    split_lines,
)
from threadwise.text.languages import LanguageIdentifier


class ScriptedEngine:
    """Answers with the given replies in order (or computed from each chat), recording the chats."""

    name = "scripted:test"
    loaded = True

    def __init__(
        self, replies: list[str] | Callable[[list[ChatMessage]], str], context_size: int = 4096
    ) -> None:
        self.context_size = context_size
        if callable(replies):
            self._reply = replies
        else:
            remaining = iter(replies)
            self._reply = lambda _chat: next(remaining)
        self.chats: list[list[ChatMessage]] = []
        self.continued: list[str] = []

    def load(self) -> None:
        pass

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        max_tokens: int,
        deadline: Deadline | None = None,
        continue_from: str = "",
        keep: bool = False,
        stop: Sequence[str] = (),
        on_text: Callable[[str], None] | None = None,
    ) -> Completion:
        self.chats.append(list(messages))
        self.continued.append(continue_from)
        reply = self._reply(messages)
        if on_text is not None:
            for word in re.findall(r"\S*\s*", reply):
                on_text(word)
        text = continue_from + reply
        return Completion(text, prompt_tokens=10, completion_tokens=5, truncated=False)

    def chat_many(
        self,
        chats: Sequence[list[ChatMessage]],
        *,
        max_tokens: Sequence[int],
        deadline: Deadline | None = None,
        continue_from: str = "",
        stops: Sequence[Sequence[str]] = (),
    ) -> list[Completion]:
        return one_by_one(
            self,
            chats,
            max_tokens=max_tokens,
            deadline=deadline,
            continue_from=continue_from,
            stops=stops,
        )


@pytest.fixture(scope="module")
def identifier() -> LanguageIdentifier:
    return LanguageIdentifier()


NOTES = (
    "Issue: Ana's parcel 7781 is late.\nActions: Ana gives parcel 7781. Bo sends a new one.\n"
    "Outcome: A new parcel is sent.\nFollow-up: none\n"
)


# Notes without an ID, for tests of later steps: a summary that leaves out an ID of its notes
# is asked for once more.
BARE_NOTES = NOTES.replace(" 7781", "")


def run(
    replies: list[str], identifier: LanguageIdentifier, **request: Any
) -> tuple[str, ScriptedEngine]:
    engine = ScriptedEngine(replies)
    summarizer = Summarizer(engine, identifier, SummaryOptions())
    job = summarizer.plan(parse_message_body(minimal_body(**request), PayloadLimits()))
    return summarizer.run(job, Deadline(30)).text, engine


def test_summary_comes_from_the_answer_after_its_notes(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [NOTES + "Summary: Ana reports parcel 7781 late; Bo sends a new one."], identifier
    )
    assert text == "Ana reports parcel 7781 late; Bo sends a new one."
    assert len(engine.chats) == 1
    assert "Ana (customer): My parcel 7781 is late." in engine.chats[0][1]["content"]


def test_answer_that_stops_after_its_notes_is_continued(identifier: LanguageIdentifier) -> None:
    text, engine = run([NOTES.strip(), " Bo sends Ana a new parcel for the late 7781."], identifier)
    assert text == "Bo sends Ana a new parcel for the late 7781."
    assert engine.continued[1] == NOTES.strip() + "\nSummary:"
    # The continuation extends the same chat, not a new user turn.
    assert engine.chats[1] == engine.chats[0]


def test_summary_that_lost_the_notes_ids_is_asked_again(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [
            NOTES + "Summary: Ana's parcel is late; Bo sends a new one.",
            "Summary: Ana's parcel 7781 is late; Bo sends a new one.",
        ],
        identifier,
    )
    assert text == "Ana's parcel 7781 is late; Bo sends a new one."
    assert "7781" in engine.chats[1][-1]["content"]


def test_invented_facts_are_revised(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [
            BARE_NOTES + "Summary: Ana reports parcel 7718 late.",
            "Summary: Ana reports parcel 7781 late.",
        ],
        identifier,
    )
    assert text == "Ana reports parcel 7781 late."
    assert "7718" in engine.chats[1][-1]["content"]


def test_sentences_still_unsupported_after_revision_are_dropped(
    identifier: LanguageIdentifier,
) -> None:
    text, _ = run(
        [
            BARE_NOTES + "Summary: Ana reports parcel 7718.",
            "Summary: Bo sends a new one. Zed pays 5 dollars.",
        ],
        identifier,
    )
    assert text == "Bo sends a new one."


def test_a_plain_draft_is_tried_when_nothing_survives(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [
            BARE_NOTES + "Summary: Zed paid 99.",
            "Summary: Zed paid 98.",
            "Summary: Bo sends a new one.",
        ],
        identifier,
    )
    assert text == "Bo sends a new one."
    assert "Issue:" not in engine.chats[2][0]["content"]  # the system prompt without notes


def test_nothing_supported_is_an_error(identifier: LanguageIdentifier) -> None:
    with pytest.raises(ServiceError) as caught:
        run(
            [
                BARE_NOTES + "Summary: Zed paid 99.",
                "Summary: Zed paid 98.",
                "Summary: Zed paid 97.",
            ],
            identifier,
        )
    assert caught.value.code is ErrorCode.PROCESSING_FAILED


def test_other_language_is_translated_and_checked(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [
            NOTES + "Summary: Ana reports parcel 7781 late; Bo sends a new one.",
            "Ana reports parcel 7781 late.",  # still English: rejected
            "Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo.",
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert text.startswith("Ana informa")
    # Each translation is asked in a fresh chat holding only the draft, never the notes.
    for chat in engine.chats[1:]:
        assert len(chat) == 2
        assert "Spanish" in chat[1]["content"]
        assert chat[1]["content"].endswith("Ana reports parcel 7781 late; Bo sends a new one.")
        assert "Issue:" not in chat[1]["content"]


def test_translation_loses_its_label_and_quotes(identifier: LanguageIdentifier) -> None:
    text, _ = run(
        [
            NOTES + "Summary: Ana reports parcel 7781 late; Bo sends a new one.",
            '"Resumen: Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo."',
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert text == "Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo."


def test_translated_sentence_with_a_new_number_is_dropped(identifier: LanguageIdentifier) -> None:
    text, _ = run(
        [
            NOTES + "Summary: Ana reports parcel 7781 late. Bo sends a new one.",
            "Ana informa que el paquete 7781 llega tarde. Bo envía uno nuevo por 25 euros.",
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert text == "Ana informa que el paquete 7781 llega tarde."


def test_translation_that_never_arrives_is_an_error(identifier: LanguageIdentifier) -> None:
    with pytest.raises(ServiceError) as caught:
        run(
            [BARE_NOTES + "Summary: Ana's parcel is late.", "Still English.", "Still English."],
            identifier,
            settings={"overrideOutputLanguage": "fr"},
        )
    assert caught.value.code is ErrorCode.PROCESSING_FAILED


def test_language_defaults_to_the_conversations_own(identifier: LanguageIdentifier) -> None:
    engine = ScriptedEngine([])
    summarizer = Summarizer(engine, identifier)
    data = minimal_body()
    data["session"] = {}
    messages = data["request"]["scope"]["conversations"][0]["messages"]
    messages[0]["content"] = "Mi paquete 7781 llega tarde y nadie me responde."
    messages[1]["content"] = "Lo siento mucho, hoy le enviamos uno nuevo."
    job = summarizer.plan(parse_message_body(data, PayloadLimits()))
    assert job.language == "es"


def test_structured_form_is_rendered_from_the_notes() -> None:
    answer = parse_answer(NOTES + "Summary: whatever")
    assert render(answer, "structured") == (
        "**Issue:** Ana's parcel 7781 is late.\n\n"
        "**Resolution:** Ana gives parcel 7781. Bo sends a new one. A new parcel is sent.\n\n"
        "**Next steps:** None."
    )


def test_notes_without_summary_fall_back_to_sentences() -> None:
    assert render(Answer(notes=NOTES, summary=""), "paragraph").startswith("Ana's parcel 7781")


def test_split_lines_keeps_every_word_within_budget() -> None:
    lines = [f"line {i} " + "word " * 30 for i in range(20)] + ["long " * 200]
    parts = split_lines(lines, 100, lambda text: len(text.split()))
    assert len(parts) > 1
    assert all(sum(len(line.split()) + 1 for line in part) <= 100 for part in parts)
    flattened = " ".join(" ".join(part) for part in parts).split()
    assert flattened == " ".join(lines).split()


def test_concise_drops_repeats_and_stops_retelling() -> None:
    retelling = "Tom asks if Sally has a job. Sally says she works at a supermarket. " * 3
    assert concise(retelling, "paragraph") == (
        "Tom asks if Sally has a job. Sally says she works at a supermarket."
    )
    long = " ".join(f"Sentence {n} has exactly six words." for n in range(20))
    assert len(concise(long, "paragraph").split()) == 60
    run_on = "Ana calls, " + "Bo checks the order, " * 20 + "and Bo sends it."
    cut = concise(run_on, "paragraph")
    assert cut == "Ana calls, " + "Bo checks the order, " * 13 + "Bo checks the order."
    assert len(cut.split()) <= 60
    first = "One sentence that is far too long " + "and goes on " * 30 + "to the end."
    assert concise(first, "paragraph") == first
    bullets = "- a\n- b\n- a\n- c\n- d\n- e\n- f"
    assert concise(bullets, "bullets") == "- a\n- b\n- c\n- d\n- e"


def test_fit_length_prefers_sentence_ends() -> None:
    text = "First sentence here. Second sentence is longer than the limit allows."
    assert fit_length(text, 30) == "First sentence here."
    assert fit_length("one two three four five", 12) == "one two…"
    assert fit_length(text, None) == text


def test_self_check_drops_sentences_judged_false(identifier: LanguageIdentifier) -> None:
    engine = ScriptedEngine(
        [NOTES + "Summary: Ana reports parcel 7781 late. Bo refunds it.", "True", "False"]
    )
    summarizer = Summarizer(engine, identifier, SummaryOptions(self_check=True))
    job = summarizer.plan(parse_message_body(minimal_body(), PayloadLimits()))
    assert summarizer.run(job, Deadline(30)).text == "Ana reports parcel 7781 late."
    assert "Statement: Bo refunds it." in engine.chats[2][-1]["content"]


def test_conversation_longer_than_the_context_is_taken_in_parts(
    identifier: LanguageIdentifier,
) -> None:
    data = minimal_body()
    data["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c" if i % 2 else "a", "content": f"message {i} " + "word " * 40}
        for i in range(60)
    ]
    messages = data["request"]["scope"]["conversations"][0]["messages"]
    messages[0]["content"] += " My parcel 7781 is late."

    def reply(chat: list[ChatMessage]) -> str:
        if chat[-1]["content"].startswith("This is part"):
            return NOTES
        return NOTES + "Summary: Ana reports parcel 7781 late."

    engine = ScriptedEngine(reply)
    system_words = len(prompts.SYSTEM_WITH_NOTES.split())
    engine.context_size = system_words + 700 + 800  # room for ~800 words of transcript a part
    summarizer = Summarizer(engine, identifier)
    job = summarizer.plan(parse_message_body(data, PayloadLimits()))
    summary = summarizer.run(job, Deadline(30))
    part_calls = [step for step in summary.steps if step.startswith("part ")]
    assert len(part_calls) >= 3
    # Every message went to some part; the last call combines the parts' notes.
    sent = " ".join(chat[1]["content"] for chat in engine.chats[: len(part_calls)])
    assert all(f"message {i} " in sent for i in range(60))
    assert "Part 1:" in engine.chats[len(part_calls)][1]["content"]
    assert summary.text == "Ana reports parcel 7781 late."


# --- streaming -------------------------------------------------------------------------------


def streamed(
    replies: list[str], identifier: LanguageIdentifier, **request: Any
) -> tuple[str, list[str]]:
    """The summary, and the partial summaries streamed while it was written."""
    partials: list[str] = []
    summarizer = Summarizer(ScriptedEngine(replies), identifier, SummaryOptions())
    job = summarizer.plan(parse_message_body(minimal_body(**request), PayloadLimits()))
    text = summarizer.run(job, Deadline(30), DraftStream(partials.append)).text
    return text, partials


def test_stream_shows_the_summary_as_written_never_the_notes(
    identifier: LanguageIdentifier,
) -> None:
    text, partials = streamed(
        [NOTES + "Summary: Ana reports parcel 7781 late; Bo sends a new one."], identifier
    )
    assert partials[0] == "Ana"
    assert partials[-1] == text == "Ana reports parcel 7781 late; Bo sends a new one."
    assert all(after.startswith(before) for before, after in itertools.pairwise(partials))
    assert not any("Issue" in partial for partial in partials)


def test_stream_of_an_answer_without_notes_starts_at_once(identifier: LanguageIdentifier) -> None:
    text, partials = streamed(
        ["- Ana's parcel 7781 is late.\n- Bo sends a new one."],
        identifier,
        settings={"summaryFormat": "bullets"},
    )
    assert partials[0] == "-" and partials[-1] == text


def test_stream_of_another_language_is_the_translation(identifier: LanguageIdentifier) -> None:
    text, partials = streamed(
        [
            NOTES + "Summary: Ana reports parcel 7781 late; Bo sends a new one.",
            "Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo.",
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert partials[-1] == text and partials[0] == "Ana"
    assert not any("reports" in partial for partial in partials)  # not the English draft


def test_structured_summary_is_not_streamed(identifier: LanguageIdentifier) -> None:
    _, partials = streamed(
        [NOTES + "Summary: Ana reports parcel 7781 late."],
        identifier,
        settings={"summaryFormat": "structured"},
    )
    assert partials == []
