"""Translation by the language model: many segments in one prompt, numbered, checked back.

Each answer line must carry its number and exactly its segment's tags, in the target language;
lines that do not are asked again one by one, and what still fails is reported as ``None`` so
that the caller can split that segment at its markup. Also post-edits another engine's draft.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatEngine, ChatMessage
from threadwise.superpowers import prompts, translation_prompts
from threadwise.text.languages import LanguageIdentifier, language_name
from threadwise.text.tagged import Parts, parse_tags, tags_of, text_of, to_tagged

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s?(.*)$")
# Segments per prompt: enough for a conversation, few enough that numbering holds.
MAX_SEGMENTS = 16
MAX_PROMPT_TOKENS = 900
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
    ) -> None:
        self.engine = engine
        self._languages = tuple(languages)
        self.identifier = identifier
        # The summarizer's system prompt: kept in the KV cache for both superpowers.
        self.system = prompts.SYSTEM_WITH_NOTES

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
    ) -> list[Parts | None]:
        return self._run(segments, None, source, target, region, deadline)

    def post_edit(
        self,
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
    ) -> list[Parts | None]:
        """Improve another engine's ``drafts``; a segment without a draft is translated."""
        return self._run(segments, drafts, source, target, region, deadline)

    def _run(
        self,
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None] | None,
        source: str,
        target: str,
        region: str | None,
        deadline: Deadline | None,
    ) -> list[Parts | None]:
        names = (language_name(source), language_name(target, region))
        results: list[Parts | None] = [None] * len(segments)
        for chunk in self._chunks(segments):
            answers = self._ask(segments, drafts, chunk, names, deadline)
            for index in chunk:
                results[index] = answers.get(index)
        # A line that came back wrong (lost a tag, merged with another, still in the source
        # language) is asked alone.
        for index in [i for i, r in enumerate(results) if r is None or self._copied(r, source)]:
            again = self._ask(segments, drafts, [index], names, deadline).get(index)
            results[index] = None if again is None or self._copied(again, source) else again
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
        chunks: list[list[int]] = [[]]
        tokens = 0
        for index, segment in enumerate(segments):
            size = self.engine.count_tokens(to_tagged(segment))
            if chunks[-1] and (
                len(chunks[-1]) >= MAX_SEGMENTS or tokens + size > MAX_PROMPT_TOKENS
            ):
                chunks.append([])
                tokens = 0
            chunks[-1].append(index)
            tokens += size
        return [c for c in chunks if c]

    def _ask(
        self,
        segments: Sequence[Parts],
        drafts: Sequence[Parts | None] | None,
        chunk: list[int],
        names: tuple[str, str],
        deadline: Deadline | None,
    ) -> dict[int, Parts]:
        if deadline is not None:
            deadline.check()
        lines = "\n".join(f"{n}. {to_tagged(segments[i])}" for n, i in enumerate(chunk, 1))
        source, target = names
        if drafts is None:
            ask = translation_prompts.TRANSLATE.format(
                source=source, target=target, tag_rule=translation_prompts.TAG_RULE, lines=lines
            )
        else:
            draft_lines = "\n".join(
                f"{n}. {to_tagged(drafts[i] or segments[i])}" for n, i in enumerate(chunk, 1)
            )
            ask = translation_prompts.POST_EDIT.format(
                source=source,
                target=target,
                tag_rule=translation_prompts.TAG_RULE,
                lines=lines,
                drafts=draft_lines,
            )
        chat: list[ChatMessage] = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": ask},
        ]
        budget = 2 * self.engine.count_tokens(lines) + 8 * len(chunk) + 16
        # A line numbered past the last is the model going on by itself: not worth waiting for.
        completion = self.engine.chat(
            chat,
            max_tokens=budget,
            deadline=deadline,
            continue_from="1.",
            stop=[f"\n{len(chunk) + 1}."],
        )
        answers: dict[int, Parts] = {}
        for line in completion.text.splitlines():
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
