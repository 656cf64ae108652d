"""A checked English summary in the language the caller asked for."""

from __future__ import annotations

import re

from threadwise.engines.base import ChatEngine, ChatMessage
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.superpowers.summarize import prompts
from threadwise.superpowers.summarize.checks import CheckedSentence
from threadwise.superpowers.summarize.facts import check_facts
from threadwise.superpowers.summarize.run import Run
from threadwise.superpowers.summarize.sentences import clean_translation, joined, units
from threadwise.text.languages import LanguageIdentifier


def translate_summary(
    run: Run, draft: str, engine: ChatEngine, identifier: LanguageIdentifier, system_prompt: str
) -> str:
    """The draft in the requested language, sentence by sentence (see ``translate_parts``);
    the whole is verified to be in the language."""
    job, summary = run.job, run.summary
    parts = [draft] if job.form == "structured" else units(draft, job.form)
    done = translate_parts(run, parts, engine, identifier, system_prompt)
    kept = [(i, text) for i, text in enumerate(done) if text is not None]
    translated = joined([text for _, text in kept], job.form)
    if not kept or identifier.detect(translated) != job.language_code:
        raise ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The model did not write the summary in {job.language_name} ({job.language}). "
            "Retry the request, or ask for the summary in English.",
        )
    if len(kept) < len(parts):
        summary.steps.append(f"dropped {len(parts) - len(kept)} translated sentences")
    if len(summary.evidence) == len(parts):
        summary.evidence = [
            CheckedSentence(text, summary.evidence[i].messages, summary.evidence[i].prompt_text)
            for i, text in kept
        ]
    elif summary.evidence:
        messages = {m: None for e in summary.evidence for m in e.messages}
        summary.evidence = [CheckedSentence(translated, tuple(messages), "")]
    if run.stream is not None:
        on_text = run.stream.step(str.strip)
        if on_text is not None:
            on_text(translated)
    return translated


def translate_parts(
    run: Run,
    parts: list[str],
    engine: ChatEngine,
    identifier: LanguageIdentifier,
    system_prompt: str,
) -> list[str | None]:
    """Each of ``parts`` in the requested language, decoded side by side (a summary's
    sentences translate in about one sentence's time); None for one that gained a number or
    ID on the way, or stayed in English, under both prompts."""
    job, summary = run.job, run.summary
    source = "\n".join(parts) + "\n" + job.transcript.evidence
    done: list[str | None] = [None] * len(parts)
    attempts: list[tuple[str, ChatMessage, str]] = [
        ("translate", {"role": "system", "content": system_prompt}, prompts.TRANSLATE),
        (
            "translate again",
            {"role": "system", "content": prompts.TRANSLATE_SYSTEM},
            prompts.TRANSLATE_STRICT,
        ),
    ]
    for step, system, template in attempts:
        todo = [i for i, text in enumerate(done) if text is None]
        if not todo:
            break
        chats: list[list[ChatMessage]] = [
            [
                system,
                {
                    "role": "user",
                    "content": template.format(language=job.language_name, text=parts[i]),
                },
            ]
            for i in todo
        ]
        budgets = [40 + 3 * engine.count_tokens(parts[i]) for i in todo]
        run.deadline.check()
        completions = engine.chat_many(chats, max_tokens=budgets, deadline=run.deadline)
        for i, completion in zip(todo, completions, strict=True):
            summary.count(completion, step)
            text = clean_translation(completion.text)
            if (
                text
                and check_facts(text, source, names=False).ok
                and not _still_english(text, parts[i], identifier)
            ):
                done[i] = text
    return done


def _still_english(text: str, english: str, identifier: LanguageIdentifier) -> bool:
    """Was ``english`` left as it was? Short sentences fool language identification, so
    the words it kept count too (names and numbers aside)."""
    if identifier.detect(text) == "en":
        return True
    words = set(re.findall(r"\b[a-z]{3,}\b", english))
    kept = words & set(re.findall(r"\b[a-z]{3,}\b", text))
    return bool(words) and len(kept) >= len(words) / 2
