"""The summarize pipeline's flow, on a scripted engine; tests/api has it on the real model."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import minimal_body
from tests.scripted_engine import ScriptedEngine
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.protocol import ErrorCode
from threadwise.superpowers.summarize import Summarizer, SummaryOptions, prompts
from threadwise.superpowers.summarize.run import Summary
from threadwise.superpowers.summarize.streaming import DraftStream
from threadwise.text.languages import LanguageIdentifier


@pytest.fixture(scope="module")
def identifier() -> LanguageIdentifier:
    return LanguageIdentifier()


NOTES = (
    "Issue: Ana's parcel 7781 is late.\nActions: Ana gives parcel 7781. Bo sends a new one.\n"
    "Outcome: A new parcel is sent.\nFollow-up: none\n"
)


def summarize(
    replies: list[str] | Callable[[list[ChatMessage]], str],
    identifier: LanguageIdentifier,
    options: SummaryOptions | None = None,
    body: dict[str, Any] | None = None,
    **request: Any,
) -> tuple[Summary, ScriptedEngine]:
    engine = ScriptedEngine(replies)
    summarizer = Summarizer(engine, identifier, options or SummaryOptions())
    job = summarizer.plan(parse_message_body(body or minimal_body(**request), PayloadLimits()))
    return summarizer.run(job, Deadline(30)), engine


def run(
    replies: list[str], identifier: LanguageIdentifier, **request: Any
) -> tuple[str, ScriptedEngine]:
    summary, engine = summarize(replies, identifier, **request)
    return summary.text, engine


def body_with(
    messages: list[tuple[str, str]],
    names: dict[str, str | None],
    roles: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A request body whose messages are (participant ID, text)."""
    data = minimal_body()
    conversation = data["request"]["scope"]["conversations"][0]
    conversation["participants"] = [
        {"participantId": pid, "displayName": name, "role": (roles or {}).get(pid)}
        for pid, name in names.items()
    ]
    conversation["messages"] = [{"participantId": p, "content": t} for p, t in messages]
    return data


def prompt_names(chat: list[ChatMessage]) -> list[str]:
    """The speakers' names as the prompt's transcript lines give them, in order."""
    lines = chat[1]["content"].split("\n")[1:]
    return list(dict.fromkeys(line.split(":")[0].split(" (")[0] for line in lines if ":" in line))


# --- the draft ----------------------------------------------------------------------------------


def test_summary_is_the_answer_written_after_its_label(identifier: LanguageIdentifier) -> None:
    text, engine = run([" Ana reports parcel 7781 late; Bo sends a new one."], identifier)
    assert text == "Ana reports parcel 7781 late; Bo sends a new one."
    assert len(engine.chats) == 1 and engine.continued == ["Summary:"]
    assert "Ana (customer): My parcel 7781 is late." in engine.chats[0][1]["content"]
    assert "Issue:" not in engine.chats[0][0]["content"]  # no notes by default


def test_warm_reads_the_system_prompts_and_keeps_them(identifier: LanguageIdentifier) -> None:
    engine = ScriptedEngine(["OK", "OK", "OK"])
    Summarizer(engine, identifier).warm()
    # The summary's last: the one most requests start with stays in the live cache.
    assert [chat[0]["content"] for chat in engine.chats] == [
        prompts.SYSTEM_ASPECTS,
        prompts.SYSTEM_WITH_NOTES,  # a verified summary's second draft
        prompts.SYSTEM_WITHOUT_NOTES,
    ]


def test_unsupported_sentences_are_dropped_without_another_call(
    identifier: LanguageIdentifier,
) -> None:
    summary, engine = summarize(
        [" Ana reports parcel 7718 late. Bo sends a new one. Zed pays 5 dollars."], identifier
    )
    # The parcel's number, which the dropped sentence had, is put back.
    assert summary.text == "Bo sends a new one (parcel 7781)."
    assert len(engine.chats) == 1
    assert "dropped 2 sentences" in summary.steps


def test_a_name_from_outside_the_conversation_never_survives(
    identifier: LanguageIdentifier,
) -> None:
    text, _ = run([" Ana reports parcel 7781 late. Oren sends her a new one."], identifier)
    # The sentence naming Oren goes; the outcome, in the agent's own words, takes its place.
    assert text == "Ana reports parcel 7781 late. Bo has sent a new one today."


def test_another_draft_when_nothing_survives(identifier: LanguageIdentifier) -> None:
    text, engine = run([" Zed paid 99.", NOTES + "Summary: Bo sends a new one."], identifier)
    assert text == "Bo sends a new one (parcel 7781)."
    assert "Issue:" in engine.chats[1][0]["content"]  # the other path: notes first


def test_nothing_supported_is_an_error(identifier: LanguageIdentifier) -> None:
    with pytest.raises(ServiceError) as caught:
        run([" Zed paid 99.", NOTES + "Summary: Zed paid 98."], identifier)
    assert caught.value.code is ErrorCode.PROCESSING_FAILED


# --- who did what -------------------------------------------------------------------------------

REFUND = [
    ("c", "Hello, I want a refund for order 48213, the blender arrived broken."),
    ("a", "Sorry about that! I can send a replacement or refund you."),
    ("c", "The refund please."),
    ("a", "Done, the refund will reach your card in 3 days."),
]


def test_an_action_given_to_the_wrong_speaker_is_given_back(
    identifier: LanguageIdentifier,
) -> None:
    body = body_with(REFUND, {"c": "Ana", "a": "Bo"}, {"c": "user", "a": "operator"})
    summary, _ = summarize(
        [" Bo wants a refund for order 48213 because the blender arrived broken."],
        identifier,
        body=body,
    )
    assert summary.text == (
        "Ana wants a refund for order 48213 because the blender arrived broken."
    )
    assert "swapped actors in 1 sentences" in summary.steps


def test_speakers_with_labels_get_distinct_names_that_never_reach_the_caller(
    identifier: LanguageIdentifier,
) -> None:
    body = body_with(REFUND, {"c": "#Person1#", "a": "#Person2#"})

    def reply(chat: list[ChatMessage]) -> str:
        customer, agent = prompt_names(chat)
        return f" {customer} wants a refund for order 48213; {agent} will refund it in 3 days."

    summary, engine = summarize(reply, identifier, body=body)
    customer, agent = prompt_names(engine.chats[0])
    assert "#Person" not in engine.chats[0][1]["content"]
    assert customer != agent and customer[0] != agent[0]
    assert (
        summary.text
        == "#Person1# wants a refund for order 48213; #Person2# will refund it in 3 days."
    )


def test_a_name_the_conversation_gives_a_speaker_is_used(identifier: LanguageIdentifier) -> None:
    body = body_with(
        [("p1", "Hi, Sam. Can you lend me your car tomorrow?"), ("p2", "Sure, Maria.")],
        {"p1": "#Person1#", "p2": "#Person2#"},
    )
    summary, engine = summarize([" Maria will borrow Sam's car tomorrow."], identifier, body=body)
    assert prompt_names(engine.chats[0]) == ["Maria", "Sam"]
    assert summary.text == "Maria will borrow Sam's car tomorrow."


def test_generic_roles_are_written_back_as_the_customer_and_the_agent(
    identifier: LanguageIdentifier,
) -> None:
    body = body_with(REFUND, {"c": "Customer", "a": "Agent"}, {"c": "user", "a": "operator"})

    def reply(chat: list[ChatMessage]) -> str:
        customer, agent = prompt_names(chat)
        return f" {customer} wants a refund for order 48213, and {agent} refunds it."

    text, _ = run_body(reply, identifier, body)
    assert text == "The customer wants a refund for order 48213, and the agent refunds it."


def run_body(
    reply: Callable[[list[ChatMessage]], str], identifier: LanguageIdentifier, body: dict[str, Any]
) -> tuple[str, ScriptedEngine]:
    summary, engine = summarize(reply, identifier, body=body)
    return summary.text, engine


def test_the_order_number_is_kept(identifier: LanguageIdentifier) -> None:
    body = body_with(REFUND, {"c": "Ana", "a": "Bo"}, {"c": "user", "a": "operator"})
    text, _ = run_body(lambda _: " Ana gets a refund for her broken order.", identifier, body)
    assert text == "Ana gets a refund for her broken order 48213."


def test_evidence_cites_each_sentence_s_messages(identifier: LanguageIdentifier) -> None:
    body = body_with(REFUND, {"c": "Ana", "a": "Bo"}, {"c": "user", "a": "operator"})
    summary, _ = summarize(
        [" Ana wants a refund for order 48213. Bo refunds her card in 3 days."],
        identifier,
        body=body,
    )
    first, second = summary.evidence
    assert first.text == "Ana wants a refund for order 48213."
    assert first.messages[0].index == 0 and first.messages[0].speaker.name == "Ana"
    assert second.messages[0].speaker.name == "Bo"
    assert all(m.conversation_id == "conv-901" for e in summary.evidence for m in e.messages)


# --- other languages ----------------------------------------------------------------------------


def test_other_language_is_translated_and_checked(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [
            " Ana reports parcel 7781 late; Bo sends a new one.",
            "Ana reports parcel 7781 late.",  # still English: rejected
            "Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo.",
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert text.startswith("Ana informa")
    for chat in engine.chats[1:]:
        assert len(chat) == 2
        assert "Spanish" in chat[1]["content"]
        assert chat[1]["content"].endswith("Ana reports parcel 7781 late; Bo sends a new one.")


def test_translation_loses_its_label_and_quotes(identifier: LanguageIdentifier) -> None:
    text, _ = run(
        [
            " Ana reports parcel 7781 late; Bo sends a new one.",
            '"Resumen: Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo."',
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert text == "Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo."


def test_translated_sentence_with_a_new_number_is_dropped(identifier: LanguageIdentifier) -> None:
    text, engine = run(
        [
            " Ana reports parcel 7781 late. Bo sends a new one.",
            # The two sentences are translated side by side; the second gains a number...
            "Ana informa que el paquete 7781 llega tarde.",
            "Bo envía uno nuevo por 25 euros.",
            "Bo envía uno nuevo por 25 euros.",  # ... and keeps it when asked again.
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    assert text == "Ana informa que el paquete 7781 llega tarde."
    assert engine.chats[2][1]["content"].endswith("Bo sends a new one.")


def test_translation_that_never_arrives_is_an_error(identifier: LanguageIdentifier) -> None:
    with pytest.raises(ServiceError) as caught:
        run(
            [" Ana's parcel is late.", *["Still English."] * 4],
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


# --- notes -------------------------------------------------------------------------------------


def test_with_notes_the_summary_comes_after_them(identifier: LanguageIdentifier) -> None:
    summary, _ = summarize(
        [NOTES + "Summary: Ana reports parcel 7781 late; Bo sends a new one."],
        identifier,
        SummaryOptions(notes=True),
    )
    assert summary.text == "Ana reports parcel 7781 late; Bo sends a new one."
    assert summary.notes == NOTES.strip()


def test_answer_that_stops_after_its_notes_is_continued(identifier: LanguageIdentifier) -> None:
    summary, engine = summarize(
        [NOTES.strip(), " Bo sends Ana a new parcel for the late 7781."],
        identifier,
        SummaryOptions(notes=True),
    )
    assert summary.text == "Bo sends Ana a new parcel for the late 7781."
    assert engine.continued[1] == NOTES.strip() + "\nSummary:"
    assert engine.chats[1] == engine.chats[0]  # the same chat, not a new user turn


def test_structured_form_is_rendered_from_the_notes(identifier: LanguageIdentifier) -> None:
    text, _ = run(
        [NOTES + "Summary: whatever"], identifier, settings={"summaryFormat": "structured"}
    )
    assert text == (
        "**Issue:** Ana's parcel 7781 is late.\n\n"
        "**Resolution:** Ana gives parcel 7781. Bo sends a new one. A new parcel is sent.\n\n"
        "**Next steps:** None."
    )


def test_conversation_longer_than_the_context_is_taken_in_parts(
    identifier: LanguageIdentifier,
) -> None:
    data = minimal_body()
    data["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c" if i % 2 else "a", "content": f"message {i} " + "word " * 40}
        for i in range(60)
    ]
    messages = data["request"]["scope"]["conversations"][0]["messages"]
    messages[1]["content"] += " My parcel 7781 is late."  # Ana's

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
    replies: list[str] | Callable[[list[ChatMessage]], str],
    identifier: LanguageIdentifier,
    body: dict[str, Any] | None = None,
    **request: Any,
) -> tuple[str, list[str]]:
    """The summary, and the partial summaries streamed while it was written."""
    partials: list[str] = []
    summarizer = Summarizer(ScriptedEngine(replies), identifier, SummaryOptions())
    job = summarizer.plan(parse_message_body(body or minimal_body(**request), PayloadLimits()))
    text = summarizer.run(job, Deadline(30), DraftStream(partials.append)).text
    return text, partials


def test_stream_shows_the_summary_as_written(identifier: LanguageIdentifier) -> None:
    text, partials = streamed([" Ana reports parcel 7781 late; Bo sends a new one."], identifier)
    assert partials[0] == "Ana"
    assert partials[-1] == text == "Ana reports parcel 7781 late; Bo sends a new one."
    assert all(after.startswith(before) for before, after in itertools.pairwise(partials))


def test_stream_never_shows_an_alias(identifier: LanguageIdentifier) -> None:
    body = body_with(REFUND, {"c": "#Person1#", "a": "#Person2#"})

    def reply(chat: list[ChatMessage]) -> str:
        customer, agent = prompt_names(chat)
        return f" {customer} wants a refund for order 48213; {agent} will refund it in 3 days."

    engine = ScriptedEngine(reply)
    summarizer = Summarizer(engine, identifier)
    job = summarizer.plan(parse_message_body(body, PayloadLimits()))
    partials: list[str] = []
    summarizer.run(job, Deadline(30), DraftStream(partials.append))
    aliases = prompt_names(engine.chats[0])
    assert partials and partials[-1].startswith("#Person1# wants")
    assert not any(re.search(rf"\b{a[:2]}", p) for p in partials for a in aliases)


def test_stream_of_another_language_is_the_translation_never_the_english(
    identifier: LanguageIdentifier,
) -> None:
    text, partials = streamed(
        [
            " Ana reports parcel 7781 late; Bo sends a new one.",
            "Ana informa que el paquete 7781 llega tarde; Bo envía uno nuevo.",
        ],
        identifier,
        settings={"overrideOutputLanguage": "es-ES"},
    )
    # The sentences are translated side by side: the translation comes whole.
    assert partials == [text]


def test_structured_summary_is_not_streamed(identifier: LanguageIdentifier) -> None:
    _, partials = streamed(
        [NOTES + "Summary: Ana reports parcel 7781 late."],
        identifier,
        settings={"summaryFormat": "structured"},
    )
    assert partials == []


def test_a_structured_summary_within_its_length_keeps_every_section(
    identifier: LanguageIdentifier,
) -> None:
    long_notes = NOTES.replace(
        "Actions: Ana gives parcel 7781. Bo sends a new one.",
        "Actions: Ana gives parcel 7781. Bo checks it. Bo apologises. Bo sends a new one.",
    )
    text, _ = run(
        [long_notes + "Summary: whatever"],
        identifier,
        settings={"summaryFormat": "structured", "maxResponseLength": 150},
    )
    assert len(text) <= 150
    for section in ("**Issue:**", "**Resolution:**", "**Next steps:**"):
        assert section in text, text


# --- summaryMode "verified" --------------------------------------------------------------------


def test_verified_keeps_only_what_a_second_draft_agrees_with(
    identifier: LanguageIdentifier,
) -> None:
    body = body_with(REFUND, {"c": "Ana", "a": "Bo"}, {"c": "user", "a": "operator"})
    body["request"]["settings"] = {"summaryMode": "verified"}
    asked: list[list[ChatMessage]] = []

    def reply(chat: list[ChatMessage]) -> str:
        asked.append(chat)
        if len(asked) == 1:
            return " Ana wants a refund for order 48213. Bo sends Ana a new blender."
        return " Ana wants a refund for order 48213.\nActions: Ana asks for a refund."

    summary, engine = summarize(reply, identifier, body=body)
    # The draft and the second draft's notes, asked after one conversation: one prompt up to
    # the transcript's end, so that the engine reads it once and decodes both side by side.
    assert len(asked) == 2 and engine.continued == ["Summary:", "Issue:"]
    assert asked[1][0] == asked[0][0]
    assert asked[1][1]["content"] == asked[0][1]["content"] + "\n\n" + prompts.SECOND_NOTES
    assert summary.text.startswith("Ana wants a refund for order 48213.")
    assert "new blender" not in summary.text
    assert "dropped 1 sentences no second draft agrees with" in summary.steps


def test_a_verified_summary_is_streamed_once_written(identifier: LanguageIdentifier) -> None:
    body = body_with(REFUND, {"c": "Ana", "a": "Bo"}, {"c": "user", "a": "operator"})
    body["request"]["settings"] = {"summaryMode": "verified"}
    replies = [" Ana wants a refund for order 48213.", " Ana wants a refund for order 48213."]
    engine = ScriptedEngine(replies)
    summarizer = Summarizer(engine, identifier)
    job = summarizer.plan(parse_message_body(body, PayloadLimits()))
    partials: list[str] = []
    summarizer.run(job, Deadline(30), DraftStream(partials.append))
    assert partials == ["Ana wants a refund for order 48213."]


def test_fast_is_one_draft(identifier: LanguageIdentifier) -> None:
    body = body_with(REFUND, {"c": "Ana", "a": "Bo"}, {"c": "user", "a": "operator"})
    body["request"]["settings"] = {"summaryMode": "fast"}
    summary, _ = summarize([" Ana wants a refund for order 48213."], identifier, body=body)
    assert summary.text.startswith("Ana wants a refund for order 48213.")
