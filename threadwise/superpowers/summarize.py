"""Summarize: condense one or more conversations into one faithful summary.

In one generation the model writes short notes (the issue, each action with its actor, the
outcome, any follow-up with its owner) and then the summary; worked examples in the fixed
system prompt show how, and stay in the engine's KV cache. The draft is checked against the
conversation (every number, ID and name must occur there) and revised once if not; then, if
another language is asked for, translated and its language verified. A conversation too long
for the model's context is taken in parts whose notes are then combined.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from threadwise.cache import Cache
from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.engines.base import ChatEngine, ChatMessage, Completion
from threadwise.engines.scheduler import Priority, Scheduler
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem, SummaryFormat
from threadwise.superpowers import prompts
from threadwise.superpowers.facts import check_facts, identifiers
from threadwise.text.languages import LanguageIdentifier, summary_language
from threadwise.text.transcript import Transcript, build_transcript

# Notes and summary together; a rambling answer is cut at its last full sentence.
_MAX_TOKENS: dict[SummaryFormat, int] = {"paragraph": 260, "bullets": 300, "structured": 260}
# The summary alone, when continued after the notes.
_SUMMARY_TOKENS = 90
# A paragraph summary is cut, at a sentence end, after this many words: past it the model has
# stopped summarizing and retells the conversation line by line.
_PARAGRAPH_WORDS = 60
_BULLETS = 5
# Context kept free for the instructions and the answer.
_CONTEXT_RESERVE = 700
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class SummaryOptions:
    """The pipeline's optional steps, switchable so that each can be measured."""

    notes: bool = True
    fact_check: bool = True
    self_check: bool = False


@dataclass(frozen=True)
class SummaryJob:
    """A validated request, ready for the engine."""

    transcript: Transcript
    language: str  # BCP 47 tag of the output, as the caller wrote it
    language_code: str  # its primary language, a key of SUMMARY_LANGUAGES
    language_name: str
    form: SummaryFormat
    max_chars: int | None


@dataclass(frozen=True)
class ThreadMemory:
    """What was said of a thread's first ``lines`` transcript lines: the chat that produced
    its summary (kept as it was, so that the engine's saved state of it is reused) and the
    summary as checked (in English). A later request whose transcript extends those lines is
    summarized from here: only the new messages are processed, and only a summary written."""

    lines: int
    prefix: str  # digest of those lines and of who is who
    chat: list[ChatMessage]
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "prefix": self.prefix,
            "chat": self.chat,
            "summary": self.summary,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ThreadMemory:
        return cls(data["lines"], data["prefix"], data["chat"], data["summary"])


def prefix_digest(lines: Sequence[str], who_is_who: str) -> str:
    text = "\n".join([who_is_who, *lines])
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Summary:
    text: str
    language: str
    engine: str
    notes: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    steps: list[str] = field(default_factory=list)
    # Set when the summary can be extended by a later request (see ThreadMemory).
    memory: ThreadMemory | None = None

    def count(self, completion: Completion, step: str) -> None:
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.steps.append(step)


@dataclass(frozen=True)
class Answer:
    """The model's answer: its notes (by heading) and its summary."""

    notes: str
    summary: str

    def note(self, heading: str) -> str:
        match = re.search(rf"^{heading}:[ \t]*(.*)$", self.notes, re.MULTILINE | re.IGNORECASE)
        value = match.group(1).strip() if match else ""
        return "" if value.lower().rstrip(".") in ("", "none", "n/a", "nothing") else value


class DraftStream:
    """Passes the summary on as the model writes its first draft: the cumulative text of the
    summary (after the notes' "Summary:"), or of its translation when another language is
    asked for. Later revisions are not streamed; the final text comes with the answer."""

    def __init__(self, on_partial: Callable[[str], None]) -> None:
        self.on_partial = on_partial
        self.sent = ""

    def step(self, extract: Callable[[str], str]) -> Callable[[str], None] | None:
        """The ``on_text`` hook for one generation, whose text so far ``extract`` turns into
        the partial summary; ``None`` once a draft has been streamed."""
        if self.sent:
            return None
        pieces: list[str] = []

        def on_text(piece: str) -> None:
            pieces.append(piece)
            partial = extract("".join(pieces))
            if partial and partial != self.sent:
                self.sent = partial
                self.on_partial(partial)

        return on_text


def _summary_so_far(text: str) -> str:
    """The summary part of an answer being written: after "Summary:" if the answer began
    with notes ("Issue: …"), else all of it (the model sometimes skips the notes)."""
    _, marker, summary = text.partition("Summary:")
    if marker:
        return summary.strip()
    start = text.lstrip()
    if start.startswith("Issue:") or "Issue:".startswith(start):
        return ""  # notes, or perhaps the start of them: not for the reader
    return text.strip()


class Summarizer:
    def __init__(
        self,
        engine: ChatEngine,
        identifier: LanguageIdentifier,
        options: SummaryOptions = SummaryOptions(),
    ) -> None:
        self.engine = engine
        self.identifier = identifier
        self.options = options
        self._system_tokens: int | None = None

    def plan(self, body: MessageBody) -> SummaryJob:
        """Validate what the request asks for; cheap, so it runs before the request queues."""
        request = body.request
        transcript = build_transcript(request.scope.conversations)
        if request.settings.overrideOutputLanguage:
            tag = summary_language(
                request.settings.overrideOutputLanguage, "request.settings.overrideOutputLanguage"
            )
        elif body.session.channel.language:
            tag = summary_language(body.session.channel.language, "session.channel.language")
        else:
            # Neither says: write in the conversation's own language.
            code = self.identifier.detect(transcript.evidence[:4000]) or "en"
            tag = summary_language(code, "the conversation's language")
        return SummaryJob(
            transcript=transcript,
            language=tag.tag,
            language_code=tag.language,
            language_name=tag.english_name,
            form=request.settings.summaryFormat or "paragraph",
            max_chars=request.settings.maxResponseLength or None,
        )

    def run(
        self,
        job: SummaryJob,
        deadline: Deadline,
        stream: DraftStream | None = None,
        memory: ThreadMemory | None = None,
    ) -> Summary:
        """Write the summary; from ``memory`` when the transcript extends the lines it covers.
        Uses the engine: call it only from the engine's work queue. With ``stream``, the
        first draft is passed on as it is written."""
        summary = Summary(text="", language=job.language, engine=self.engine.name)
        if job.form == "structured":
            stream = None  # rendered from the notes: there is no draft to show
        english = stream if job.language_code == "en" else None
        transcript = job.transcript
        with_notes = self.options.notes or job.form == "structured"
        budget = self.engine.context_size - _CONTEXT_RESERVE - self._system_size()
        if memory is not None and self._extends(memory, job, budget):
            return self._continue(job, memory, summary, deadline, stream)
        parts = split_lines(transcript.lines, budget, self.engine.count_tokens)
        who = transcript.who_is_who()
        if len(parts) == 1:
            ask = prompts.CONVERSATION.format(who_is_who=who, transcript=transcript.text)
        else:
            # Too long for the context: notes on each part, then one summary from all notes.
            with_notes = True
            ask = prompts.COMBINE_PARTS.format(
                who_is_who=who, notes=self._part_notes(parts, who, summary, deadline)
            )
        system = prompts.SYSTEM_WITH_NOTES if with_notes else prompts.SYSTEM_WITHOUT_NOTES
        max_words = job.max_chars // 6 if job.max_chars else None
        instruction = prompts.format_instruction(job.form, max_words)
        chat: list[ChatMessage] = [
            {"role": "system", "content": system},
            {"role": "user", "content": f"{ask}\n\n{instruction}" if instruction else ask},
        ]
        said = self._say(
            chat,
            _MAX_TOKENS[job.form],
            summary,
            "summary",
            deadline,
            keep=True,
            on_text=english.step(_summary_so_far) if english else None,
        )
        answer = parse_answer(said)
        if not answer.notes and job.form == "structured":
            chat.append({"role": "user", "content": prompts.NOTES_ONLY})
            said = self._say(chat, _MAX_TOKENS[job.form], summary, "notes again", deadline)
            answer = Answer(notes=parse_answer(said).notes, summary=answer.summary)
        if not answer.summary and answer.notes and job.form != "structured":
            # The answer stopped after its notes (it often does): continue it from "Summary:",
            # which costs only the summary's tokens, the rest being in the KV cache.
            chat.pop()
            said = self._say(
                chat,
                _SUMMARY_TOKENS,
                summary,
                "summary continued",
                deadline,
                continue_from=f"{answer.notes}\nSummary:",
                keep=True,
                on_text=english.step(str.strip) if english else None,
            )
            answer = Answer(notes=answer.notes, summary=parse_answer(said).summary)
        extensible = len(parts) == 1 and with_notes and job.form != "structured"
        return self._finish(job, chat, answer, summary, deadline, stream, remember=extensible)

    def _extends(self, memory: ThreadMemory, job: SummaryJob, budget: int) -> bool:
        """Does the transcript extend what ``memory`` covers, and does it all fit?"""
        lines = job.transcript.lines
        if job.form == "structured" or not 0 < memory.lines < len(lines):
            return False
        if memory.prefix != prefix_digest(lines[: memory.lines], job.transcript.who_is_who()):
            return False
        used = sum(self.engine.count_tokens(m["content"]) for m in memory.chat)
        new = sum(self.engine.count_tokens(line) for line in lines[memory.lines :])
        return used + new < budget + self._system_size()

    def _continue(
        self,
        job: SummaryJob,
        memory: ThreadMemory,
        summary: Summary,
        deadline: Deadline,
        stream: DraftStream | None,
    ) -> Summary:
        """The summary of a thread that grew since ``memory``: asked after the chat that
        summarized the earlier part (whose state the engine restores), with the new messages
        and the earlier summary; only the new summary is generated. The earlier summary
        stands in for the notes: an ID it kept and the new one lost is asked for again."""
        new_lines = job.transcript.lines[memory.lines :]
        ask = prompts.UPDATE.format(
            count=len(new_lines), lines="\n".join(new_lines), summary=memory.summary
        )
        max_words = job.max_chars // 6 if job.max_chars else None
        instruction = prompts.format_instruction(job.form, max_words)
        chat: list[ChatMessage] = [
            *memory.chat,
            {"role": "user", "content": f"{ask}\n\n{instruction}" if instruction else ask},
        ]
        said = self._say(
            chat,
            _MAX_TOKENS[job.form] - _SUMMARY_TOKENS,
            summary,
            "update",
            deadline,
            continue_from="Summary:",
            keep=True,
            on_text=stream.step(str.strip) if stream and job.language_code == "en" else None,
        )
        answer = Answer(notes=memory.summary, summary=parse_answer(said).summary)
        return self._finish(job, chat, answer, summary, deadline, stream, remember=True)

    def _finish(
        self,
        job: SummaryJob,
        chat: list[ChatMessage],
        answer: Answer,
        summary: Summary,
        deadline: Deadline,
        stream: DraftStream | None,
        *,
        remember: bool,
    ) -> Summary:
        """Check the draft's IDs and facts, fit its length, translate it: the steps every
        path ends with. With ``remember``, what a longer version of the thread can start
        from is kept in ``summary.memory``."""
        transcript = job.transcript
        summary.notes = answer.notes
        # The chat as the engine saw it when the summary was written: its state is kept.
        written = chat[:]
        if answer.notes and answer.summary and job.form != "structured":
            answer = self._with_identifiers(chat, answer, job, summary, deadline)
        if self.options.self_check and job.form != "structured":
            verified = self._verified(transcript, answer.summary, summary, deadline)
            answer = Answer(notes=answer.notes, summary=verified)
        if self.options.fact_check and job.form == "structured":
            # Rendered from the notes: drop what the conversation does not support, note by note.
            answer = supported_notes(answer, job.transcript.evidence)
        draft = concise(render(answer, job.form), job.form)
        if self.options.fact_check and job.form != "structured":
            draft = self._checked(chat, draft, job, summary, deadline)
        draft = fit_length(draft, job.max_chars)
        if remember and answer.summary and draft:
            lines = transcript.lines
            summary.memory = ThreadMemory(
                len(lines), prefix_digest(lines, transcript.who_is_who()), written, draft
            )
        if job.language_code != "en":
            draft = self._translated(chat, draft, job, summary, deadline, stream)
        summary.text = fit_length(draft, job.max_chars)
        return summary

    # --- steps -------------------------------------------------------------------------

    def _system_size(self) -> int:
        if self._system_tokens is None:
            self._system_tokens = self.engine.count_tokens(prompts.SYSTEM_WITH_NOTES)
        return self._system_tokens

    def _part_notes(
        self, parts: list[list[str]], who: str, summary: Summary, deadline: Deadline
    ) -> str:
        notes = []
        for number, lines in enumerate(parts, start=1):
            head = prompts.PART.format(part=number, parts=len(parts))
            ask = prompts.CONVERSATION.format(who_is_who=who, transcript="\n".join(lines))
            chat: list[ChatMessage] = [
                {"role": "system", "content": prompts.SYSTEM_WITH_NOTES},
                {"role": "user", "content": f"{head}\n{ask}"},
            ]
            said = self._say(chat, _MAX_TOKENS["paragraph"], summary, f"part {number}", deadline)
            answer = parse_answer(said)
            notes.append(f"Part {number}:\n{answer.notes or answer.summary}")
        return "\n\n".join(notes)

    def _with_identifiers(
        self,
        chat: list[ChatMessage],
        answer: Answer,
        job: SummaryJob,
        summary: Summary,
        deadline: Deadline,
    ) -> Answer:
        """The summary, asked once more if it lost the IDs (order, invoice, ticket numbers)
        that the notes carried over from the conversation: they are what a reader looks for."""
        evidence = job.transcript.evidence
        missing = [
            i for i in identifiers(answer.notes) if i in evidence and i not in answer.summary
        ]
        if not missing:
            return answer
        chat.append({"role": "user", "content": prompts.KEEP_IDS.format(ids=", ".join(missing))})
        said = self._say(chat, _MAX_TOKENS[job.form], summary, "keep IDs", deadline)
        rewritten = parse_answer(said).summary
        if rewritten and any(i in rewritten for i in missing):
            return Answer(notes=answer.notes, summary=rewritten)
        return answer

    def _verified(
        self, transcript: Transcript, draft: str, summary: Summary, deadline: Deadline
    ) -> str:
        """Keep the sentences the model judges true, asked one by one against the conversation.

        The questions share the chat up to the statement, so after the first one the engine
        processes only the statement."""
        kept = []
        for sentence in split_sentences(draft):
            question: list[ChatMessage] = [
                {"role": "system", "content": prompts.VERIFY_SYSTEM},
                {
                    "role": "user",
                    "content": prompts.VERIFY.format(
                        transcript=transcript.text, statement=sentence
                    ),
                },
            ]
            said = self._say(question, 3, summary, "verify", deadline)
            if not said.lower().startswith("false"):
                kept.append(sentence)
        if not kept:
            return draft
        return ("\n" if "\n" in draft else " ").join(kept)

    def _checked(
        self,
        chat: list[ChatMessage],
        draft: str,
        job: SummaryJob,
        summary: Summary,
        deadline: Deadline,
    ) -> str:
        evidence = job.transcript.evidence
        check = check_facts(draft, evidence)
        if check.ok:
            return draft
        chat.append(
            {"role": "user", "content": prompts.REVISE.format(facts=", ".join(check.unsupported))}
        )
        said = self._say(chat, _MAX_TOKENS[job.form], summary, "revise", deadline)
        revised = parse_answer(said).summary or said
        if check_facts(revised, evidence).ok:
            return revised
        # Still unsupported: keep only the sentences whose facts all occur in the conversation.
        kept = [s for s in split_sentences(revised) if check_facts(s, evidence).ok]
        if not kept and self.options.notes:
            # Last resort: a fresh draft without notes, which takes another path through the model.
            plain: list[ChatMessage] = [
                {"role": "system", "content": prompts.SYSTEM_WITHOUT_NOTES},
                chat[1],
            ]
            said = self._say(plain, _MAX_TOKENS[job.form], summary, "plain draft", deadline)
            draft = parse_answer(said).summary or said
            kept = [s for s in split_sentences(draft) if check_facts(s, evidence).ok]
        if not kept:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                "The model could not write a summary whose facts all occur in the conversation. "
                "Retry the request; if it fails again, send the conversation in smaller parts.",
            )
        summary.steps.append("dropped unsupported sentences")
        return " ".join(kept) if job.form == "paragraph" else "\n".join(kept)

    def _translated(
        self,
        chat: list[ChatMessage],
        draft: str,
        job: SummaryJob,
        summary: Summary,
        deadline: Deadline,
        stream: DraftStream | None = None,
    ) -> str:
        """The draft in the requested language, by the model; its language is verified, and a
        sentence that gained a number or ID on the way is dropped."""
        max_tokens = 2 * _MAX_TOKENS[job.form]
        attempts: list[tuple[str, ChatMessage, str]] = [
            ("translate", chat[0], prompts.TRANSLATE),
            (
                "translate again",
                {"role": "system", "content": prompts.TRANSLATE_SYSTEM},
                prompts.TRANSLATE_STRICT,
            ),
        ]
        source = draft + "\n" + job.transcript.evidence
        for step, system, template in attempts:
            ask = template.format(language=job.language_name, text=draft)
            request: list[ChatMessage] = [system, {"role": "user", "content": ask}]
            on_text = stream.step(clean_translation) if stream else None
            said = self._say(request, max_tokens, summary, step, deadline, on_text=on_text)
            text = clean_translation(said)
            if not text or self.identifier.detect(text) != job.language_code:
                continue
            if check_facts(text, source, names=False).ok:
                return text
            separator = " " if job.form == "paragraph" else "\n"
            kept = [s for s in split_sentences(text) if check_facts(s, source, names=False).ok]
            if kept and self.identifier.detect(separator.join(kept)) == job.language_code:
                summary.steps.append("dropped unsupported sentences")
                return separator.join(kept)
        raise ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The model did not write the summary in {job.language_name} ({job.language}). "
            "Retry the request, or ask for the summary in English.",
        )

    def _say(
        self,
        chat: list[ChatMessage],
        max_tokens: int,
        summary: Summary,
        step: str,
        deadline: Deadline,
        continue_from: str = "",
        keep: bool = False,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        deadline.check()
        completion = self.engine.chat(
            chat,
            max_tokens=max_tokens,
            deadline=deadline,
            continue_from=continue_from,
            keep=keep,
            on_text=on_text,
        )
        summary.count(completion, step)
        text = completion.text.strip()
        if completion.truncated:
            text = _complete_sentences(text)
        chat.append({"role": "assistant", "content": text})
        return text


class SummarizeSuperpower:
    """The operation as transports call it: validate, queue for the model, answer."""

    def __init__(
        self,
        summarizer: Summarizer,
        queue: Scheduler,
        deadlines: DeadlinePolicy,
        threads: Cache | None = None,
        threads_ttl_seconds: float = 3600.0,
    ) -> None:
        self.summarizer = summarizer
        self.queue = queue
        self.deadlines = deadlines
        # What was said of each thread (per organization), for its next, longer version.
        self.threads = threads
        self.threads_ttl_seconds = threads_ttl_seconds

    async def __call__(
        self,
        body: MessageBody,
        on_partial: Callable[[str], None] | None = None,
        *,
        scope: str = "",
    ) -> list[ResponseItem]:
        """The summary; with ``on_partial``, the draft so far is passed to it (on the event
        loop) as the model writes it, before this returns. ``scope`` (tenant and
        organization) keeps the memory of summarized threads apart."""
        job = self.summarizer.plan(body)  # bad input fails here, before it takes a queue slot
        deadline = self.deadlines.start(len(job.transcript.text))
        stream = None
        if on_partial is not None:
            loop = asyncio.get_running_loop()

            def to_loop(text: str) -> None:  # called on the engine's thread
                loop.call_soon_threadsafe(on_partial, text)

            stream = DraftStream(to_loop)
        key = self._thread_key(body, job, scope)
        stored = await self.threads.get(key) if self.threads is not None else None
        memory = ThreadMemory.from_json(stored) if stored else None
        # Cost: roughly what the model takes, in units of a short chat's summary.
        cost = 1 + len(job.transcript.text) / 1000 if memory is None else 1.0
        summary = await self.queue.run(
            lambda: self.summarizer.run(job, deadline, stream, memory),
            deadline,
            Priority.BATCH,
            cost,
        )
        if self.threads is not None and summary.memory is not None:
            await self.threads.put(key, summary.memory.to_json(), self.threads_ttl_seconds)
        return [
            ResponseItem(
                content=summary.text,
                type="summary",
                language=summary.language,
                engine=summary.engine,
            )
        ]

    def _thread_key(self, body: MessageBody, job: SummaryJob, scope: str) -> str:
        options = self.summarizer.options
        what = [
            scope,
            body.request.connections.threadId,
            job.language,
            job.form,
            job.max_chars,
            self.summarizer.engine.name,
            [options.notes, options.fact_check, options.self_check],
        ]
        return hashlib.sha256(repr(what).encode()).hexdigest()


# --- answer and text helpers -------------------------------------------------------------------


def parse_answer(text: str) -> Answer:
    head, marker, tail = text.rpartition("Summary:")
    if not marker:
        return Answer(notes=text, summary="") if "Issue:" in text else Answer("", text.strip())
    return Answer(notes=head.strip(), summary=tail.strip())


_LABEL = re.compile(
    r"^\W*(summary|resumen|résumé|resume|zusammenfassung|resumo|riassunto|sommario|samenvatting)"
    r"\s*:\s*",
    re.IGNORECASE,
)


def clean_translation(text: str) -> str:
    """A translation without the quotes or the "Summary:" label the model sometimes adds."""
    text = _LABEL.sub("", text.strip())
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'«»“”":
        text = text[1:-1].strip()
    return text.strip('"“”«» ') if text.count('"') == 1 else text


def supported_notes(answer: Answer, evidence: str) -> Answer:
    """The notes without the sentences whose numbers, IDs or names the evidence lacks."""
    lines = []
    for line in answer.notes.splitlines():
        heading, colon, value = line.partition(":")
        if not colon:
            continue
        kept = [s for s in split_sentences(value) if check_facts(s, evidence).ok]
        lines.append(f"{heading}: {' '.join(kept)}")
    return Answer(notes="\n".join(lines), summary=answer.summary)


def render(answer: Answer, form: SummaryFormat) -> str:
    """The summary in the requested form; ``structured`` is rendered from the notes."""
    if form == "structured" and answer.notes:
        resolution = " ".join(_sentence(answer.note(h)) for h in ("Actions", "Outcome")).strip()
        return (
            f"**Issue:** {_sentence(answer.note('Issue')) or 'Not stated.'}\n\n"
            f"**Resolution:** {resolution or 'None.'}\n\n"
            f"**Next steps:** {_sentence(answer.note('Follow-up')) or 'None.'}"
        )
    if answer.summary:
        return answer.summary
    # No summary line (the answer was cut short): say what the notes say, in sentences.
    return " ".join(
        _sentence(answer.note(h)) for h in ("Issue", "Actions", "Outcome", "Follow-up")
    ).strip()


def concise(text: str, form: SummaryFormat) -> str:
    """Without repeated sentences (greedy decoding can loop), and cut where a paragraph stops
    summarizing: at the sentence end before ``_PARAGRAPH_WORDS``, or after ``_BULLETS``."""
    if form == "structured":
        return text
    if form == "bullets":
        bullets = list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))
        return "\n".join(bullets[:_BULLETS])
    kept: list[str] = []
    words = 0
    for sentence in dict.fromkeys(split_sentences(text)):
        words += len(sentence.split())
        if kept and words > _PARAGRAPH_WORDS:
            break
        kept.append(sentence)
    if len(kept) == 1 and words > _PARAGRAPH_WORDS:
        # One run-on sentence ("A, B, C, and D"): end it at its last clause within the limit.
        head = " ".join(kept[0].split()[:_PARAGRAPH_WORDS])
        cut = head.rfind(", ")
        if cut > len(head) // 2:
            kept = [head[:cut].rstrip(" ,;") + "."]
    return " ".join(kept)


def split_lines(
    lines: Sequence[str], budget: int, count_tokens: Callable[[str], int]
) -> list[list[str]]:
    """Group consecutive lines into parts of at most ``budget`` tokens (a longer line is
    split at spaces). Nothing is dropped."""
    parts: list[list[str]] = [[]]
    used = 0
    for line in lines:
        for piece in _pieces(line, budget - 1, count_tokens):
            cost = count_tokens(piece) + 1
            if parts[-1] and used + cost > budget:
                parts.append([])
                used = 0
            parts[-1].append(piece)
            used += cost
    return parts


def _pieces(line: str, budget: int, count_tokens: Callable[[str], int]) -> list[str]:
    if count_tokens(line) <= budget:
        return [line]
    pieces: list[str] = []
    current: list[str] = []
    for word in line.split(" "):
        if current and count_tokens(" ".join([*current, word])) > budget:
            pieces.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        pieces.append(" ".join(current))
    return pieces


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def fit_length(text: str, max_chars: int | None) -> str:
    """Cut ``text`` to ``max_chars`` at a sentence end if one fits, else at a word."""
    if not max_chars or len(text) <= max_chars:
        return text
    head = text[:max_chars]
    end = max(head.rfind(". "), head.rfind("! "), head.rfind("? "), head.rfind("\n"))
    if head.endswith((".", "!", "?")):
        end = len(head) - 1
    if end >= max_chars // 3:
        return head[: end + 1].rstrip()
    return head[: max_chars - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def _complete_sentences(text: str) -> str:
    end = max(text.rfind("."), text.rfind("!"), text.rfind("?"))
    return text[: end + 1] if end > len(text) // 3 else text


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
