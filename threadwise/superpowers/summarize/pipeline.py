"""The summarize pipeline: prompt, draft, check, translate.

Speakers are called by distinct names in the prompt (``cast``); the model writes a short
summary under a fixed system prompt (kept in the engine's KV cache); every sentence is then
checked without the model (``checks``): its subject against the messages behind it, its
names, numbers and IDs against the conversation. A sentence that fails is fixed or dropped.
If another language is asked for, the checked English summary is translated and its language
verified. A conversation too long for the model's context is taken in parts whose notes are
then combined.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatEngine, ChatMessage, read_ahead
from threadwise.engines.machine import MachineTranslator
from threadwise.errors import ServiceError
from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import ErrorCode, MessageBody, SummaryFormat
from threadwise.superpowers.summarize import prompts
from threadwise.superpowers.summarize.answer import Answer, parse_answer, render, supported_notes
from threadwise.superpowers.summarize.aspects import AspectWriter
from threadwise.superpowers.summarize.checks import Checked, CheckedSentence, check_draft
from threadwise.superpowers.summarize.corroboration import corroborate, named_back, rotated
from threadwise.superpowers.summarize.job import SummaryJob, SummaryOptions, plan
from threadwise.superpowers.summarize.memory import ThreadMemory, prefix_digest
from threadwise.superpowers.summarize.outcome import state_outcome
from threadwise.superpowers.summarize.output_language import translate_summary
from threadwise.superpowers.summarize.run import Run, Summary
from threadwise.superpowers.summarize.sentences import (
    complete_sentences,
    concise,
    fit_length,
    fit_sections,
    split_lines,
    units,
)
from threadwise.superpowers.summarize.streaming import DraftStream, summary_so_far
from threadwise.text.languages import LanguageIdentifier

# Notes and summary together; a rambling answer is cut at its last full sentence.
_MAX_TOKENS: dict[SummaryFormat, int] = {"paragraph": 260, "bullets": 300, "structured": 260}
# The summary alone, written without notes or continued after them.
_SUMMARY_TOKENS = 90
# A second draft's notes (``summaryMode: "verified"``): written on their own (a long
# conversation's, or beside notes) or side by side with the summary, which stops them.
_NOTES_TOKENS = 200
_SIDE_NOTES_TOKENS = 160
_SIDE_NOTES_STOPS = ("Follow-up:", "Summary:", "\nIssue:")
# Context kept free for the instructions and the answer.
_CONTEXT_RESERVE = 700


class Summarizer:
    def __init__(
        self,
        engine: ChatEngine,
        identifier: LanguageIdentifier,
        options: SummaryOptions | None = None,
        machines: Mapping[str, MachineTranslator] | None = None,
    ) -> None:
        self.engine = engine
        self.identifier = identifier
        self.options = options or SummaryOptions()
        # By summary language, the machine engine that translates into it from English
        # better than the model (``output_language``).
        self.machines = dict(machines or {})
        self._system_tokens: int | None = None

    @property
    def system_prompt(self) -> str:
        """The system prompt of most summaries, worth keeping in the engine's cache."""
        return prompts.SYSTEM_WITH_NOTES if self.options.notes else prompts.SYSTEM_WITHOUT_NOTES

    def warm(self) -> None:
        """Have the engine read the fixed system prompts now (see ``read_ahead``): the
        aspects', the second draft's (``summaryMode: "verified"``) and the summary's, last."""
        read_ahead(self.engine, prompts.SYSTEM_ASPECTS)
        read_ahead(self.engine, self._second_system)
        read_ahead(self.engine, self.system_prompt)

    @property
    def _second_system(self) -> str:
        """The system prompt a second draft is written under: the one the first is not."""
        return prompts.SYSTEM_WITHOUT_NOTES if self.options.notes else prompts.SYSTEM_WITH_NOTES

    def plan(self, body: MessageBody, custom: Sequence[CustomAspect] = ()) -> SummaryJob:
        """Validate what the request asks for; cheap, so it runs before the request queues.
        ``custom``: the aspects the caller's organization defined."""
        return plan(body, self.identifier, cast=self.options.cast, custom=custom)

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
        if job.aspects:
            # Each aspect is its own item: no draft to stream, no thread memory.
            writer = AspectWriter(
                self.engine,
                self.identifier,
                job.custom,
                self.options.checks,
                self.machines.get(job.language_code),
            )
            summary.aspects = writer.write(Run(job, deadline, summary), job.aspects)
            return summary
        if stream is not None:
            stream.present = job.cast.write_back_partial
        run = Run(job, deadline, summary, None if job.form == "structured" else stream)
        budget = self.engine.context_size - _CONTEXT_RESERVE - self._system_size()
        if memory is not None and self._extends(memory, job, budget):
            return self._continue(run, memory)
        transcript = job.transcript
        parts = split_lines(transcript.lines, budget, self.engine.count_tokens)
        who = transcript.who_is_who()
        with_notes = self.options.notes or job.form == "structured" or len(parts) > 1
        if len(parts) == 1:
            ask = prompts.CONVERSATION.format(who_is_who=who, transcript=transcript.text)
        else:
            # Too long for the context: notes on each part, then one summary from all notes.
            ask = prompts.COMBINE_PARTS.format(who_is_who=who, notes=self._part_notes(parts, run))
        answer, chat = self._draft(run, ask, with_notes)
        extensible = len(parts) == 1 and job.form != "structured"
        return self._finish(run, chat, answer, remember=extensible)

    def _draft(self, run: Run, ask: str, with_notes: bool) -> tuple[Answer, list[ChatMessage]]:
        """The model's first answer to ``ask``: notes and summary, or a summary alone."""
        job = run.job
        system = prompts.SYSTEM_WITH_NOTES if with_notes else prompts.SYSTEM_WITHOUT_NOTES
        instruction = prompts.format_instruction(job.form, _max_words(job))
        chat: list[ChatMessage] = [
            {"role": "system", "content": system},
            {"role": "user", "content": f"{ask}\n\n{instruction}" if instruction else ask},
        ]
        english = run.english_stream
        if not with_notes and job.verified and self.options.checks:
            return self._draft_beside_notes(run, chat, ask), chat
        if not with_notes:
            said = self._say(
                run,
                chat,
                _SUMMARY_TOKENS * (2 if job.form == "bullets" else 1),
                "summary",
                continue_from="Summary:",
                keep=True,
                on_text=english.step(_after_label) if english else None,
            )
            return Answer(notes="", summary=parse_answer(said).summary), chat
        said = self._say(
            run,
            chat,
            _MAX_TOKENS[job.form],
            "summary",
            keep=True,
            on_text=english.step(summary_so_far) if english else None,
        )
        answer = parse_answer(said)
        if not answer.notes and job.form == "structured":
            chat.append({"role": "user", "content": prompts.NOTES_ONLY})
            said = self._say(run, chat, _MAX_TOKENS[job.form], "notes again")
            answer = Answer(notes=parse_answer(said).notes, summary=answer.summary)
        if not answer.summary and answer.notes and job.form != "structured":
            # The answer stopped after its notes (it often does): continue it from "Summary:",
            # which costs only the summary's tokens, the rest being in the KV cache.
            chat.pop()
            said = self._say(
                run,
                chat,
                _SUMMARY_TOKENS,
                "summary continued",
                continue_from=f"{answer.notes}\nSummary:",
                keep=True,
                on_text=english.step(str.strip) if english else None,
            )
            answer = Answer(notes=answer.notes, summary=parse_answer(said).summary)
        return answer, chat

    def _draft_beside_notes(self, run: Run, chat: list[ChatMessage], ask: str) -> Answer:
        """The summary and, for ``summaryMode: "verified"``, a second draft's notes on the
        same conversation, asked the other way (``prompts.SECOND_NOTES``): the two prompts
        are one up to the transcript's end, so it is read once and both answers are decoded
        side by side (one sequence's time, about, for two; bench/FAITHFULNESS.md, round 10).
        The summary is passed to the stream when it is complete, not as it is written."""
        run.deadline.check()
        notes_chat: list[ChatMessage] = [
            chat[0],
            {"role": "user", "content": f"{ask}\n\n{prompts.SECOND_NOTES}"},
        ]
        draft, notes = self.engine.chat_many(
            [chat, notes_chat],
            max_tokens=[_SUMMARY_TOKENS, _SIDE_NOTES_TOKENS],
            deadline=run.deadline,
            continue_from=["Summary:", "Issue:"],
            stops=[(), _SIDE_NOTES_STOPS],
        )
        run.summary.count(draft, "summary")
        run.summary.count(notes, "second draft")
        said = complete_sentences(draft.text) if draft.truncated else draft.text
        chat.append({"role": "assistant", "content": said})
        run.second_draft = notes.text
        summary = parse_answer(said).summary
        english = run.english_stream
        if english is not None and (on_text := english.step(str.strip)) is not None:
            on_text(summary)
        return Answer(notes="", summary=summary)

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

    def _continue(self, run: Run, memory: ThreadMemory) -> Summary:
        """The summary of a thread that grew since ``memory``: asked after the chat that
        summarized the earlier part (whose state the engine restores), with the new messages
        and the earlier summary; only the new summary is generated."""
        job = run.job
        new_lines = job.transcript.lines[memory.lines :]
        ask = prompts.UPDATE.format(
            count=len(new_lines), lines="\n".join(new_lines), summary=memory.summary
        )
        instruction = prompts.format_instruction(job.form, _max_words(job))
        chat: list[ChatMessage] = [
            *memory.chat,
            {"role": "user", "content": f"{ask}\n\n{instruction}" if instruction else ask},
        ]
        english = run.english_stream
        said = self._say(
            run,
            chat,
            _SUMMARY_TOKENS,
            "update",
            continue_from="Summary:",
            keep=True,
            on_text=english.step(_after_label) if english else None,
        )
        answer = Answer(notes="", summary=parse_answer(said).summary)
        return self._finish(run, chat, answer, remember=True)

    def _finish(
        self, run: Run, chat: list[ChatMessage], answer: Answer, *, remember: bool
    ) -> Summary:
        """Check the draft, fit its length, translate it: the steps every path ends with.
        With ``remember``, what a longer version of the thread can start from is kept in
        ``summary.memory``."""
        job, summary = run.job, run.summary
        summary.notes = job.cast.write_back(answer.notes)
        # The chat as the engine saw it when the summary was written: its state is kept.
        written = chat[:]
        if job.form == "structured":
            if self.options.checks:
                # Rendered from the notes: drop what the conversation does not support.
                answer = supported_notes(answer, job.transcript.evidence)
            draft = fit_sections(job.cast.write_back(render(answer, job.form)), job.max_chars)
        else:
            rendered = render(answer, job.form)
            summary.draft = job.cast.write_back(rendered)
            checked = self._checked(run, concise(rendered, job.form, job.sentences))
            if job.verified and self.options.checks:
                self._corroborate(run, checked)
            if self.options.checks and job.form == "paragraph" and job.transcript.has_roles:
                messages = job.transcript.messages
                added = state_outcome(
                    checked, checked.ledger, messages, job.cast.names, job.cast.write_back
                )
                if added:
                    run.summary.steps.append("outcome stated from the ledger")
            draft = checked.text(job.form)
            summary.evidence = checked.sentences
            if remember and draft:
                lines = job.transcript.lines
                summary.memory = ThreadMemory(
                    len(lines),
                    prefix_digest(lines, job.transcript.who_is_who()),
                    written,
                    " ".join(s.prompt_text for s in checked.sentences),
                )
        draft = fit_length(draft, job.max_chars)
        if job.language_code != "en":
            draft = translate_summary(
                run,
                draft,
                self.engine,
                self.identifier,
                self.system_prompt,
                self.machines.get(job.language_code),
            )
        summary.text = fit_length(draft, job.max_chars)
        # Evidence for the sentences the length limit kept.
        summary.evidence = [e for e in summary.evidence if e.text in summary.text]
        return summary

    # --- steps -------------------------------------------------------------------------

    def _system_size(self) -> int:
        if self._system_tokens is None:
            self._system_tokens = self.engine.count_tokens(prompts.SYSTEM_WITH_NOTES)
        return self._system_tokens

    def _part_notes(self, parts: list[list[str]], run: Run) -> str:
        notes = []
        who = run.job.transcript.who_is_who()
        for number, lines in enumerate(parts, start=1):
            head = prompts.PART.format(part=number, parts=len(parts))
            ask = prompts.CONVERSATION.format(who_is_who=who, transcript="\n".join(lines))
            chat: list[ChatMessage] = [
                {"role": "system", "content": prompts.SYSTEM_WITH_NOTES},
                {"role": "user", "content": f"{head}\n{ask}"},
            ]
            said = self._say(run, chat, _MAX_TOKENS["paragraph"], f"part {number}")
            answer = parse_answer(said)
            notes.append(f"Part {number}:\n{answer.notes or answer.summary}")
        return "\n\n".join(notes)

    def _checked(self, run: Run, draft: str) -> Checked:
        """The draft's sentences as checked: actors fixed, unsupported ones dropped. When
        nothing survives, one fresh draft by another path through the model is checked."""
        job = run.job
        if not self.options.checks:
            return Checked(
                [CheckedSentence(job.cast.write_back(s), (), s) for s in units(draft, job.form)]
            )
        checked = check_draft(draft, job.transcript, job.cast, job.form)
        self._note(run.summary, checked)
        if checked.sentences:
            return checked
        other = (
            prompts.SYSTEM_WITH_NOTES if not self.options.notes else prompts.SYSTEM_WITHOUT_NOTES
        )
        ask = prompts.CONVERSATION.format(
            who_is_who=job.transcript.who_is_who(), transcript=job.transcript.text
        )
        chat: list[ChatMessage] = [
            {"role": "system", "content": other},
            {"role": "user", "content": ask},
        ]
        said = self._say(run, chat, _MAX_TOKENS[job.form], "another draft")
        checked = check_draft(
            concise(render(parse_answer(said), job.form), job.form, job.sentences),
            job.transcript,
            job.cast,
            job.form,
        )
        self._note(run.summary, checked)
        if not checked.sentences:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                "The model could not write a summary whose facts all occur in the conversation. "
                "Retry the request; if it fails again, send the conversation in smaller parts.",
            )
        return checked

    def _corroborate(self, run: Run, checked: Checked) -> None:
        """Keep the sentences a second draft, written another way, agrees with: the notes
        written beside the draft, else (``_second_draft``) one written on its own."""
        job = run.job
        second = run.second_draft
        if second is None:
            second = self._second_draft(run)
        dropped = corroborate(checked, second, job.cast.names.values())
        if dropped:
            run.summary.steps.append(
                f"dropped {len(dropped)} sentences no second draft agrees with"
            )

    def _second_draft(self, run: Run) -> str:
        """A second draft where the summary itself came after notes (``options.notes``, a
        long conversation's parts): under the other system prompt with the speakers'
        aliases exchanged; in the cast's names."""
        job = run.job
        names = rotated(job.cast)
        transcript = job.transcript.renamed(names)
        ask = prompts.CONVERSATION.format(
            who_is_who=transcript.who_is_who(), transcript=transcript.text
        )
        chat: list[ChatMessage] = [
            {"role": "system", "content": self._second_system},
            {"role": "user", "content": ask},
        ]
        if self.options.notes:
            answer = parse_answer(self._say(run, chat, _SUMMARY_TOKENS, "second draft"))
            said = answer.summary
        else:
            # Its notes alone (issue, actions, outcome): the summary after them would cost
            # as much again and say the same (measured: bench/FAITHFULNESS.md, round 9).
            said = self._say(run, chat, _NOTES_TOKENS, "second draft", stop=("Summary:",))
            said = parse_answer(said).notes or said
        return named_back(said, names, job.cast)

    @staticmethod
    def _note(summary: Summary, checked: Checked) -> None:
        if checked.swapped:
            summary.steps.append(f"swapped actors in {checked.swapped} sentences")
        if checked.dropped:
            summary.steps.append(f"dropped {len(checked.dropped)} sentences")
        if checked.restated:
            summary.steps.append(f"restated {len(checked.restated)} clauses by the ledger")

    def _say(
        self,
        run: Run,
        chat: list[ChatMessage],
        max_tokens: int,
        step: str,
        continue_from: str = "",
        keep: bool = False,
        on_text: Callable[[str], None] | None = None,
        stop: tuple[str, ...] = (),
    ) -> str:
        run.deadline.check()
        completion = self.engine.chat(
            chat,
            max_tokens=max_tokens,
            deadline=run.deadline,
            continue_from=continue_from,
            keep=keep,
            on_text=on_text,
            stop=stop,
        )
        run.summary.count(completion, step)
        text = completion.text.strip()
        if completion.truncated:
            text = complete_sentences(text)
        chat.append({"role": "assistant", "content": text})
        return text


def _max_words(job: SummaryJob) -> int | None:
    return job.max_chars // 6 if job.max_chars else None


def _after_label(text: str) -> str:
    """The summary being written after "Summary:" (which the answer was begun with)."""
    return re.sub(r"^\s*Summary:\s*", "", text).strip()
