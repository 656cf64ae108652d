"""A chat engine for tests of the code around the model: scripted replies, recorded chats."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage, Completion, answer_starts


class ScriptedEngine:
    """Answers with the given replies in order (or computed from each chat), recording the chats."""

    name = "scripted:test"
    unavailable: str | None = None

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
        continue_from: str | Sequence[str] = "",
        stops: Sequence[Sequence[str]] = (),
    ) -> list[Completion]:
        starts = answer_starts(continue_from, len(chats))
        return [
            self.chat(
                chat,
                max_tokens=budget,
                deadline=deadline,
                continue_from=starts[number],
                stop=stops[number] if stops else (),
            )
            for number, (chat, budget) in enumerate(zip(chats, max_tokens, strict=True))
        ]
