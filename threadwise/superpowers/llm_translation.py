"""Translation by the language model: many segments in one prompt, numbered, checked back.

Each answer line must carry its number and exactly its segment's tags, in the target language;
lines that do not are asked again one by one, and what still fails is reported as ``None`` so
that the caller can split that segment at its markup. With a formality, the prompt says which
register to use, and a line in the other one (``text.formality.RegisterCheck``) is asked again
with the rule repeated; the second answer is kept unless it is worse. Also post-edits another
engine's draft.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatEngine, ChatMessage, read_ahead
from threadwise.protocol import Formality
from threadwise.superpowers import prompts, translation_prompts
from threadwise.superpowers.registers import Registers
from threadwise.text.formality import instruction
from threadwise.text.languages import LanguageIdentifier, language_name
from threadwise.text.tagged import Parts, parse_tags, tags_of, text_of, to_tagged

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s?(.*)$")
# Segments per prompt: enough for a conversation, few enough that numbering holds.
MAX_SEGMENTS = 16
MAX_PROMPT_TOKENS = 900
# Prompts per engine call: the llama.cpp engine decodes four side by side, which takes about
# as long as one prompt of a quarter of the lines (see engines/llama_parallel.py).
SIDE_BY_SIDE = 4
# Shorter lines (names, "OK") may rightly read the same in both languages.
MIN_LETTERS_CHECKED = 20


class LlmTranslator:
    """Any direction between languages the model knows. Calls run on the model's work queue."""

    kind = "llm"

    def __init__(
        self,
        engine: ChatEngine,
        languages: Sequence[str],
        identifier: LanguageIdentifier | None = None,
        system: str = prompts.TRANSLATOR_SYSTEM,
        registers: Registers | None = None,
    ) -> None:
        self.engine = engine
        self._languages = tuple(languages)
        self.identifier = identifier
        self.registers = registers or Registers()
        # The summarizer's system prompt: kept in the KV cache for both superpowers.
        self.system = system

    def warm(self) -> None:
        """Have the engine read the fixed system prompt now (see ``read_ahead``)."""
        read_ahead(self.engine, self.system)

    def directions(self) -> frozenset[tuple[str, str]]:
        return frozenset((s, t) for s in self._languages for t in self._languages if s != t)

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        return self.engine.name

    def load(self) -> None:
        self.engine.load()

    def close(self) -> None:
        pass

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
        formality: Formality = "default",
        terms: Sequence[tuple[str, str]] = (),
    ) -> list[Parts | None]:
        """``terms``: (source, translation) pairs the lines must translate so."""
        return self._run(segments, None, source, target, region, deadline, formality, terms)

    def post_edit(
        self,
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
        formality: Formality = "default",
        terms: Sequence[tuple[str, str]] = (),
    ) -> list[Parts | None]:
        """Improve another engine's ``drafts``; a segment without a draft is translated."""
        return self._run(segments, drafts, source, target, region, deadline, formality, terms)

    def _run(
        self,
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None] | None,
        source: str,
        target: str,
        region: str | None,
        deadline: Deadline | None,
        formality: Formality = "default",
        terms: Sequence[tuple[str, str]] = (),
    ) -> list[Parts | None]:
        ask = _Asking(
            (language_name(source), language_name(target, region)),
            instruction(target, region, formality),
            _terms_rule(terms),
        )
        results: list[Parts | None] = [None] * len(segments)
        chunks = self._chunks(segments)
        for chunk, answers in zip(
            chunks, self._ask(segments, drafts, chunks, ask, deadline), strict=True
        ):
            for index in chunk:
                results[index] = answers.get(index)

        # A line that came back wrong (lost a tag, merged with another, still in the source
        # language) is asked alone; so is one in the other register that could not be
        # rewritten into the one asked for.
        keeper = self.registers.keeper(source, target, region, formality)
        lost = {i for i, r in enumerate(results) if r is None or self._copied(r, source)}
        problems: dict[int, int] = {}
        for index, parts in enumerate(results):
            if keeper is not None and parts is not None and index not in lost:
                results[index], count = keeper.kept(segments[index], parts)
                if count:
                    problems[index] = count
        wrong = sorted({*lost, *problems})
        reminded = replace(ask, reminder=bool(problems))
        alone = self._ask(segments, drafts, [[i] for i in wrong], reminded, deadline)
        for index, answers in zip(wrong, alone, strict=True):
            again = answers.get(index)
            if again is None or self._copied(again, source):
                if index in lost:
                    results[index] = None
            elif keeper is None or index in lost:
                results[index] = again
            else:
                again, count = keeper.kept(segments[index], again)
                if count <= problems[index]:
                    results[index] = again  # else the first answer was closer
        return results

    def _copied(self, parts: Parts, source: str) -> bool:
        """Whether a line is still in the source language: the model sometimes copies a
        line, or drifts back into it halfway (measured: es→fr, es→pt)."""
        if self.identifier is None:
            return False
        words = text_of(parts)
        if sum(c.isalpha() for c in words) < MIN_LETTERS_CHECKED:
            return False
        language, probability = self.identifier.detect_with_probability(words)
        return language == source and probability >= self.identifier.SURE

    def _chunks(self, segments: Sequence[Parts]) -> list[list[int]]:
        """Consecutive segments in prompts of about equal size: as many as the engine decodes
        side by side (or a multiple), each within ``MAX_SEGMENTS`` and ``MAX_PROMPT_TOKENS``.
        The answers are about as long as the prompts, so the prompts end together."""
        sizes = [self.engine.count_tokens(to_tagged(segment)) for segment in segments]
        if not sizes:
            return []
        total = sum(sizes)
        count = max(
            math.ceil(total / MAX_PROMPT_TOKENS),
            math.ceil(len(sizes) / MAX_SEGMENTS),
            SIDE_BY_SIDE,
        )
        count = min(len(sizes), math.ceil(count / SIDE_BY_SIDE) * SIDE_BY_SIDE)
        share = total / count
        chunks: list[list[int]] = [[]]
        used = 0
        for index, size in enumerate(sizes):
            full = len(chunks[-1]) >= MAX_SEGMENTS or used + size > MAX_PROMPT_TOKENS
            past_share = used + size / 2 > share and len(chunks) < count
            if chunks[-1] and (full or past_share):
                chunks.append([])
                used = 0
            chunks[-1].append(index)
            used += size
        return chunks

    def _ask(
        self,
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None] | None,
        chunks: list[list[int]],
        ask: _Asking,
        deadline: Deadline | None,
    ) -> list[dict[int, Parts]]:
        """Each chunk's lines translated, by segment index; all chunks in one engine call."""
        if not chunks:
            return []
        if deadline is not None:
            deadline.check()
        chats: list[list[ChatMessage]] = []
        budgets: list[int] = []
        for chunk in chunks:
            lines = _numbered(segments, chunk)
            prompt = self._prompt(segments, drafts, chunk, lines, ask)
            chats.append(
                [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}]
            )
            budgets.append(2 * self.engine.count_tokens(lines) + 8 * len(chunk) + 16)
        completions = self.engine.chat_many(
            chats,
            max_tokens=budgets,
            deadline=deadline,
            continue_from="1.",
            # A line numbered past the last is the model going on by itself: not worth waiting.
            stops=[[f"\n{len(chunk) + 1}."] for chunk in chunks],
        )
        return [
            self._answers(segments, chunk, completion.text)
            for chunk, completion in zip(chunks, completions, strict=True)
        ]

    @staticmethod
    def _prompt(
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None] | None,
        chunk: list[int],
        lines: str,
        ask: _Asking,
    ) -> str:
        source, target = ask.names
        # Most chat lines carry no markup: the rule about tags would only cost prompt time.
        tagged = any(tags_of(segments[i]) for i in chunk)
        tag_rule = f" {translation_prompts.TAG_RULE}" if tagged else ""
        register_rule = "".join(f" {r}" for r in (ask.register_rule, ask.terms_rule) if r)
        reminder = f"\n\n({ask.register_rule})" if ask.reminder and ask.register_rule else ""
        if drafts is None:
            return translation_prompts.TRANSLATE.format(
                source=source,
                target=target,
                tag_rule=tag_rule,
                register_rule=register_rule,
                lines=lines,
                reminder=reminder,
            )
        draft_lines = _numbered([drafts[i] or segments[i] for i in chunk], range(len(chunk)))
        return translation_prompts.POST_EDIT.format(
            source=source,
            target=target,
            tag_rule=tag_rule,
            register_rule=register_rule,
            lines=lines,
            drafts=draft_lines,
            reminder=reminder,
        )

    @staticmethod
    def _answers(segments: Sequence[Parts], chunk: list[int], text: str) -> dict[int, Parts]:
        answers: dict[int, Parts] = {}
        for line in text.splitlines():
            match = _NUMBERED.match(line)
            if not match:
                continue
            number = int(match.group(1))
            if not 1 <= number <= len(chunk) or chunk[number - 1] in answers:
                continue
            index = chunk[number - 1]
            parsed = parse_tags(match.group(2).strip(), tags_of(segments[index]))
            if parsed is not None and any(isinstance(p, str) and p.strip() for p in parsed):
                answers[index] = parsed
        return answers


@dataclass(frozen=True)
class _Asking:
    """How the lines are asked: the languages' names, the rule about the register (empty:
    none), and whether the prompt ends with that rule once more."""

    names: tuple[str, str]
    register_rule: str = ""
    terms_rule: str = ""
    reminder: bool = False


def _terms_rule(terms: Sequence[tuple[str, str]]) -> str:
    """The prompt's sentence about a glossary's terms ("" for none)."""
    if not terms:
        return ""
    pairs = "; ".join(f'"{source}" as "{target}"' for source, target in terms)
    return f"Translate these terms exactly so: {pairs}."


def _numbered(segments: Sequence[Parts], chunk: Sequence[int]) -> str:
    """The chunk's segments as the prompt shows them: "1. …", one a line."""
    return "\n".join(f"{n}. {to_tagged(segments[i])}" for n, i in enumerate(chunk, 1))
