"""One summary being written: its job, deadline, stream, and what it produced so far."""

from __future__ import annotations

from dataclasses import dataclass, field

from threadwise.deadlines import Deadline
from threadwise.engines.base import Completion
from threadwise.protocol import Entity, NextStep, SentimentShift
from threadwise.superpowers.summarize.checks import CheckedSentence
from threadwise.superpowers.summarize.job import SummaryJob
from threadwise.superpowers.summarize.memory import ThreadMemory
from threadwise.superpowers.summarize.streaming import DraftStream


@dataclass
class AspectText:
    """One aspect as written: its content and, by kind, its parts."""

    aspect: str
    content: str
    label: str | None = None
    steps: list[NextStep] | None = None
    sentiment: SentimentShift | None = None
    entities: list[Entity] | None = None
    evidence: list[CheckedSentence] = field(default_factory=list)


@dataclass
class Summary:
    text: str
    language: str
    engine: str
    notes: str = ""
    draft: str = ""  # the model's summary before the checks (speakers by their own names)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    steps: list[str] = field(default_factory=list)
    # Each sentence of ``text`` and the messages that support it (not for structured).
    evidence: list[CheckedSentence] = field(default_factory=list)
    # Set when the summary can be extended by a later request (see ThreadMemory).
    memory: ThreadMemory | None = None
    # With aspects asked for: each of them, in order (``text`` is then empty).
    aspects: list[AspectText] = field(default_factory=list)

    def count(self, completion: Completion, step: str) -> None:
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.steps.append(step)


@dataclass
class Run:
    """One summary being written: the job, its deadline, its stream and what it produced."""

    job: SummaryJob
    deadline: Deadline
    summary: Summary
    stream: DraftStream | None = None
    # summaryMode "verified": the notes written beside the draft, in the prompt's names.
    second_draft: str | None = None

    @property
    def english_stream(self) -> DraftStream | None:
        return self.stream if self.job.language_code == "en" else None
