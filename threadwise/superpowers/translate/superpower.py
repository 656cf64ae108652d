"""Translate: every message into each target language, Markdown and protected text kept.

The pipeline (``pipeline``) identifies each message's language and groups messages by source
language; per group, the router picks the tier's engine once (the fast tier never waits for
the model). A quality engine that cannot answer within the deadline (the model is busy)
gives way to the direction's fast engine, and the result says so. An organization's glossary
terms become their given translations in every engine (``terms``), and a requested
formality is kept by the model and by rewriting the machine engines' lines (``registers``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.engines.machine import TranslationEngineError
from threadwise.engines.profiles import Choice, Profiles
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.superpowers.translate.backends import Backend
from threadwise.superpowers.translate.job import SourceMessage, TranslationJob, Wording
from threadwise.superpowers.translate.pipeline import Routed, Translator
from threadwise.superpowers.translate.segments import (
    FORMALITY_NOT_APPLIED,
    UNCHANGED,
    Translated,
)
from threadwise.text.languages import LanguageTag
from threadwise.text.markdown_segments import SegmentedMessage
from threadwise.text.terms import Glossary, Term
from threadwise.work_queue import Priority, Scheduler

log = logging.getLogger(__name__)

T = TypeVar("T")

# Time kept back from the model for the fast engine, should the model not make it.
FALLBACK_RESERVE_SECONDS = 1.0
# Fast work (characters, once per target) above this takes turns with other such work on
# one lane.
LARGE_WORK_CHARACTERS = 20_000
LARGE = "large"
# What the fast queue's estimates count as one unit of work (about 20 ms).
COST_CHARACTERS = 1_000
# Why the model's refusal (OVERLOADED, by its reason) sent a group to the fast engine.
_FALLBACK_REASONS = {"engine_down": "the model server is down"}


@dataclass
class _Prepared:
    segmented: list[SegmentedMessage]
    languages: list[str | None]  # per message; None: nothing to translate
    groups: list[dict[str, list[int]]]  # per target: message indices by source language
    done: dict[tuple[int, str], list[Translated]]  # (target number, source): translated
    for_the_model: dict[tuple[int, str], Routed]  # (target number, source): the model's route


@dataclass(frozen=True)
class QueuedTranslator:
    """A translator (its model one engine's) and the work queue of that engine."""

    translator: Translator
    queue: Scheduler


class TranslateSuperpower:
    """The operation as transports call it: plan, route each group, fall back, answer."""

    def __init__(
        self,
        translators: Profiles[QueuedTranslator],
        fast_queue: Scheduler,
        deadlines: DeadlinePolicy,
    ) -> None:
        # The request's attributes.variant picks the model's (engine profiles); the rest of
        # the pipeline is the same for all.
        self.translators = translators
        self.translator = translators.default.translator
        # Language identification, segmentation and the fast engines: threads of their own,
        # bounded like the model's queue, never behind it.
        self.fast_queue = fast_queue
        self.deadlines = deadlines

    def check(
        self,
        body: MessageBody,
        glossaries: Sequence[Glossary] = (),
        keep: Sequence[Term] = (),
        experimental: bool = False,
    ) -> None:
        """Refuse what ``__call__`` would refuse before any engine (an asynchronous job is
        refused at submission, not once it runs)."""
        self.translator.plan(body, glossaries, keep, experimental)
        self.translators.choose(body.request.attributes.variant)

    async def __call__(
        self,
        body: MessageBody,
        glossaries: Sequence[Glossary] = (),
        keep: Sequence[Term] = (),
        experimental: bool = False,
    ) -> list[list[ResponseItem]]:
        """Each target's translations; ``glossaries`` and ``keep`` are the organization's
        (``text.terms``), ``experimental`` whether its policy allows experimental
        directions."""
        job = self.translator.plan(body, glossaries, keep, experimental)  # bad input fails here
        model = self.translators.choose(body.request.attributes.variant)
        translator = model.value.translator
        characters = sum(len(m.content) for m in job.messages)
        deadline = self.deadlines.start(characters)
        # One trip to the fast engines' threads: detection, segmentation and every group a
        # fast engine translates. Only the model's groups are left for its queue.
        work = characters * len(job.targets)
        prepared = await self._off_loop(
            lambda: self._prepare(translator, job, deadline), deadline, work
        )
        results = []
        for number, target in enumerate(job.targets):
            outcome: list[Translated | None] = [None] * len(job.messages)
            for source, indices in prepared.groups[number].items():
                translated = prepared.done.get((number, source))
                if translated is None:
                    messages = [prepared.segmented[i] for i in indices]
                    translated = await self._group(
                        model,
                        prepared.for_the_model[(number, source)],
                        messages,
                        deadline,
                        job.wording(source, target.language),
                    )
                for index, item in zip(indices, translated, strict=True):
                    outcome[index] = item
            for index, language in enumerate(prepared.languages):
                if language is None or language == target.language:
                    outcome[index] = Translated(job.messages[index].content, UNCHANGED)
            results.append(
                [
                    _item(message, source, target, done)
                    for message, source, done in zip(
                        job.messages, prepared.languages, outcome, strict=True
                    )
                    if done is not None
                ]
            )
        return results

    async def readings(
        self, texts: Sequence[str], conversations: Sequence[int], deadline: Deadline
    ) -> list[str | None]:
        """Each text as the fast engines read it in English, for checks rather than people
        (the summary's: ``Transcript.read``): None where it is English already, has nothing
        to translate, or no fast engine reads its language (German), or the engines failed.
        ``conversations``: each text's conversation, whose language helps identify its own."""
        if not texts:
            return []
        job = TranslationJob(
            tuple(
                SourceMessage(None, None, None, text, conversation)
                for text, conversation in zip(texts, conversations, strict=True)
            ),
            (LanguageTag("en", "en"),),
            "fast",
        )
        try:
            prepared = await self._off_loop(
                lambda: self._prepare(self.translator, job, deadline),
                deadline,
                sum(map(len, texts)),
            )
        except ServiceError as exc:
            log.warning("no English readings of the messages (%s): checked as written", exc)
            return [None] * len(texts)
        found: list[str | None] = [None] * len(texts)
        for source, indices in prepared.groups[0].items():
            for index, done in zip(indices, prepared.done.get((0, source), ()), strict=False):
                if done.engine != UNCHANGED:
                    found[index] = done.text
        return found

    def _prepare(
        self, translator: Translator, job: TranslationJob, deadline: Deadline
    ) -> _Prepared:
        """On a fast engine's thread: the messages prepared, grouped by source language per
        target, each group routed, and the groups a fast engine (or no engine) takes,
        translated; the deadline (or the client going away) stops it between groups."""
        segmented, languages = translator.prepare(job)
        prepared = _Prepared(segmented, languages, [], {}, {})
        for number, target in enumerate(job.targets):
            groups: dict[str, list[int]] = {}
            for index, source in enumerate(languages):
                if source is not None and source != target.language:
                    groups.setdefault(source, []).append(index)
            prepared.groups.append(groups)
            for source, indices in groups.items():
                messages = [segmented[i] for i in indices]
                routed = translator.route(source, target, job.tier, job.formality, job.experimental)
                if routed is None:
                    done = [Translated(m.text, UNCHANGED) for m in messages]
                elif routed.backend.uses_model:
                    prepared.for_the_model[(number, source)] = routed
                    continue
                else:
                    deadline.check()
                    wording = job.wording(source, target.language)
                    done = _fast_now(translator, routed.backend, messages, deadline, wording)
                prepared.done[(number, source)] = done
        return prepared

    async def _group(
        self,
        model: Choice[QueuedTranslator],
        routed: Routed,
        messages: list[SegmentedMessage],
        deadline: Deadline,
        wording: Wording,
    ) -> list[Translated]:
        """A group the tier gives to the model (the one ``model`` chose): on its queue, or
        on the fast engine when the model cannot answer in time."""
        translator, queue = model.value.translator, model.value.queue
        fallback = routed.fallback
        reason = None
        expected_wait = queue.expected_wait(Priority.INTERACTIVE)
        if fallback is not None and expected_wait > deadline.remaining() - FALLBACK_RESERVE_SECONDS:
            reason = f"the model's queue needs ~{expected_wait:.0f} s"
        else:
            # With a fast engine to fall back on, keep time back for it.
            reserve = FALLBACK_RESERVE_SECONDS if fallback is not None else 0.0
            model_deadline = Deadline(max(0.1, deadline.remaining() - reserve))
            try:
                translated = await queue.run(
                    lambda: translator.translate_group(
                        routed.backend, messages, model_deadline, wording
                    ),
                    model_deadline,
                    Priority.INTERACTIVE,
                )
            except ServiceError as exc:
                if fallback is None or exc.code not in (
                    ErrorCode.OVERLOADED,
                    ErrorCode.REQUEST_TIMEOUT,
                ):
                    raise
                if exc.code is ErrorCode.REQUEST_TIMEOUT:
                    reason = "timeout"
                else:
                    reason = _FALLBACK_REASONS.get(exc.reason or "", "the model is busy")
            except TranslationEngineError:
                if fallback is None:
                    raise
                reason = "the model failed"
            else:
                return [_noted(t, model.note) for t in translated]
        assert fallback is not None
        # No deadline here: the model may overrun its share (prompt processing cannot be
        # interrupted), and the fast engine answers in milliseconds; late beats failed.
        fast = await self._off_loop(
            lambda: _fast_now(translator, fallback, messages, None, wording),
            None,
            sum(len(m.text) for m in messages),
        )
        return [_fallback(t, f" (fast fallback: {reason})") for t in fast]

    async def _off_loop(
        self, work: Callable[[], T], deadline: Deadline | None, characters: int
    ) -> T:
        """``work`` on a fast engine's thread. Large work takes turns on one lane: large
        requests never hold every thread, and short ones keep answering in milliseconds."""
        lanes = (LARGE,) if characters > LARGE_WORK_CHARACTERS else ()
        cost = max(1.0, characters / COST_CHARACTERS)
        return await self.fast_queue.run(work, deadline, Priority.INTERACTIVE, cost, lanes)


def _fast_now(
    translator: Translator,
    backend: Backend,
    messages: list[SegmentedMessage],
    deadline: Deadline | None,
    wording: Wording,
) -> list[Translated]:
    try:
        return translator.translate_group(backend, messages, deadline, wording)
    except TranslationEngineError as exc:
        raise ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The {backend.kind} engine failed ({exc}). Retry the request; a dead Apertium "
            "pipeline is restarted on the next use.",
        ) from exc


def _fallback(translated: Translated, note: str) -> Translated:
    """``note`` on a fast engine's translation, before its note on the formality."""
    if translated.engine.endswith(FORMALITY_NOT_APPLIED):
        name = translated.engine.removesuffix(FORMALITY_NOT_APPLIED)
        return Translated(translated.text, name + note + FORMALITY_NOT_APPLIED)
    return _noted(translated, note)


def _noted(translated: Translated, note: str) -> Translated:
    """``note`` added to the engine of a message an engine translated."""
    if not note or translated.engine == UNCHANGED:
        return translated
    return Translated(translated.text, translated.engine + note)


def _item(
    message: SourceMessage, source: str | None, target: LanguageTag, done: Translated
) -> ResponseItem:
    return ResponseItem(
        content=done.text,
        type="translation",
        conversationId=message.conversation_id,
        participantId=message.participant_id,
        timestamp=message.timestamp,
        sourceLanguage=source,
        targetLanguage=target.tag,
        engine=done.engine,
    )
