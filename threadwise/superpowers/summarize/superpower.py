"""The summarize operation as transports call it: validate, queue for the model, answer."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from threadwise.cache import Cache
from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.engines.profiles import Profiles
from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import Evidence, MessageBody, MessageRef, ResponseItem
from threadwise.superpowers.summarize.checks import CheckedSentence
from threadwise.superpowers.summarize.job import SummaryJob
from threadwise.superpowers.summarize.memory import ThreadMemory
from threadwise.superpowers.summarize.pipeline import Summarizer
from threadwise.superpowers.summarize.sentences import fit_length
from threadwise.superpowers.summarize.streaming import DraftStream
from threadwise.text.transcript import Transcript
from threadwise.work_queue import Priority, Scheduler

# Messages' English readings (texts, their conversations' numbers; None: none needed or
# possible): ``TranslateSuperpower.readings``.
Reader = Callable[[Sequence[str], Sequence[int], Deadline], Awaitable[list[str | None]]]


@dataclass(frozen=True)
class QueuedSummarizer:
    """A summarizer and the work queue of its engine."""

    summarizer: Summarizer
    queue: Scheduler


class SummarizeSuperpower:
    """The operation as transports call it: validate, queue for the model, answer."""

    def __init__(
        self,
        summarizers: Profiles[QueuedSummarizer],
        deadlines: DeadlinePolicy,
        threads: Cache | None = None,
        threads_ttl_seconds: float = 3600.0,
        reader: Reader | None = None,
    ) -> None:
        # The request's attributes.variant picks one (engine profiles).
        self.summarizers = summarizers
        self.deadlines = deadlines
        # What was said of each thread (per organization), for its next, longer version.
        self.threads = threads
        self.threads_ttl_seconds = threads_ttl_seconds
        # The summary is checked in English: messages in another language are read in English
        # by the fast engines first, else the check finds no words of theirs and gives what
        # they said to whoever repeated it in English. (The model reads them as written.)
        self.reader = reader

    def check(self, body: MessageBody, custom: Sequence[CustomAspect] = ()) -> None:
        """Refuse what ``__call__`` would refuse before any engine (an asynchronous job is
        refused at submission, not once it runs)."""
        chosen = self.summarizers.choose(body.request.attributes.variant)
        chosen.value.summarizer.plan(body, custom)

    async def __call__(
        self,
        body: MessageBody,
        on_partial: Callable[[str], None] | None = None,
        *,
        scope: str = "",
        custom: Sequence[CustomAspect] = (),
    ) -> list[ResponseItem]:
        """The summary, or each aspect asked for; with ``on_partial``, the summary's draft
        so far is passed to it (on the event loop) as the model writes it, before this
        returns. ``scope`` (tenant and organization) keeps the memory of summarized threads
        apart; ``custom`` are the aspects the organization defined."""
        chosen = self.summarizers.choose(body.request.attributes.variant)
        summarizer, queue = chosen.value.summarizer, chosen.value.queue
        job = summarizer.plan(body, custom)  # bad input fails here, before it takes a slot
        deadline = self.deadlines.start(len(job.transcript.text))
        if self.reader is not None:
            job = replace(job, transcript=await self._read(job.transcript, deadline))
        stream = None
        if on_partial is not None:
            loop = asyncio.get_running_loop()

            def to_loop(text: str) -> None:  # called on the engine's thread
                loop.call_soon_threadsafe(on_partial, text)

            stream = DraftStream(to_loop)
        key = self._thread_key(body, job, scope, summarizer)
        # Aspects are written afresh each time: only a plain summary is remembered.
        stored = None
        if self.threads is not None and not job.aspects:
            stored = await self.threads.get(key)
        memory = ThreadMemory.from_json(stored) if stored else None
        # Cost: roughly what the model takes, in units of a short chat's summary.
        cost = 1 + len(job.transcript.text) / 1000 if memory is None else 1.0
        summary = await queue.run(
            lambda: summarizer.run(job, deadline, stream, memory),
            deadline,
            Priority.BATCH,
            cost,
        )
        if self.threads is not None and summary.memory is not None:
            await self.threads.put(key, summary.memory.to_json(), self.threads_ttl_seconds)
        cited = bool(body.request.settings.includeEvidence)
        engine = summary.engine + chosen.note
        if job.aspects:
            return [
                ResponseItem(
                    content=fit_length(aspect.content, job.max_chars),
                    type="summary",
                    language=summary.language,
                    engine=engine,
                    aspect=aspect.aspect,
                    label=aspect.label,
                    steps=aspect.steps,
                    sentiment=aspect.sentiment,
                    entities=aspect.entities,
                    evidence=_evidence(aspect.evidence) if cited and aspect.evidence else None,
                )
                for aspect in summary.aspects
            ]
        evidence = None
        if cited and job.form != "structured":
            evidence = _evidence(summary.evidence)
        return [
            ResponseItem(
                content=summary.text,
                type="summary",
                language=summary.language,
                engine=engine,
                evidence=evidence,
            )
        ]

    async def _read(self, transcript: Transcript, deadline: Deadline) -> Transcript:
        assert self.reader is not None
        numbers: dict[str | None, int] = {}
        conversations = [
            numbers.setdefault(m.conversation_id, len(numbers)) for m in transcript.messages
        ]
        texts = [m.text for m in transcript.messages]
        return transcript.read(await self.reader(texts, conversations, deadline))

    def _thread_key(
        self, body: MessageBody, job: SummaryJob, scope: str, summarizer: Summarizer
    ) -> str:
        options = summarizer.options
        what = [
            scope,
            body.request.connections.threadId,
            job.language,
            job.form,
            job.max_chars,
            summarizer.engine.name,
            [options.notes, options.cast, options.checks],
        ]
        return hashlib.sha256(repr(what).encode()).hexdigest()


def _evidence(sentences: Sequence[CheckedSentence]) -> list[Evidence]:
    return [
        Evidence(
            sentence=sentence.text,
            messages=[
                MessageRef(conversationId=m.conversation_id, messageIndex=m.index)
                for m in sentence.messages
            ],
        )
        for sentence in sentences
    ]
