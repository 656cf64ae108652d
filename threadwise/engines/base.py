"""What the superpowers need of a language model, whichever backend runs it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypedDict

from threadwise.deadlines import Deadline


class ChatMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    # True when generation stopped at max_tokens rather than at a natural end.
    truncated: bool


class ChatEngine(Protocol):
    """A chat model. Its work queue has as many workers as it takes calls at once: one for
    the embedded model, the concurrency of a model server.

    Backends keep what they can of the previous call's state: a prompt that extends the
    previous one (same system prompt, or a follow-up turn) is only processed from where
    they differ.
    """

    @property
    def name(self) -> str:
        """``backend:model``, reported with each result."""
        ...

    @property
    def context_size(self) -> int: ...

    @property
    def unavailable(self) -> str | None:
        """Why the engine cannot take work now (its server is down), or None."""
        ...

    def load(self) -> None: ...

    def count_tokens(self, text: str) -> int: ...

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
        """The assistant's answer to ``messages``. With ``continue_from``, the answer is made
        to start with that text, which the returned text includes; generation also ends before
        any of ``stop``. With ``on_text``, each piece of text is passed to it as it is
        generated (on the calling thread). With ``keep``, the backend may keep the state of
        this call for a later prompt that extends it (the same thread with new messages)."""
        ...

    def chat_many(
        self,
        chats: Sequence[list[ChatMessage]],
        *,
        max_tokens: Sequence[int],
        deadline: Deadline | None = None,
        continue_from: str | Sequence[str] = "",
        stops: Sequence[Sequence[str]] = (),
    ) -> list[Completion]:
        """Answers to several independent chats, in order, as ``chat`` would give them (each
        chat's answer begun with ``continue_from``, or with its own item of it, and ending
        before any of its ``stops``, if given); a backend may decode them side by side (one
        engine call's time for several answers)."""
        ...


def read_ahead(engine: ChatEngine, system: str) -> None:
    """Have ``engine`` read a fixed system prompt now and keep its state, so that the first
    request that starts with it reads only what follows."""
    chat: list[ChatMessage] = [
        {"role": "system", "content": system},
        {"role": "user", "content": "Hello."},
    ]
    engine.chat(chat, max_tokens=1, keep=True)


def answer_starts(continue_from: str | Sequence[str], count: int) -> list[str]:
    """``chat_many``'s ``continue_from`` as one start per chat."""
    if isinstance(continue_from, str):
        return [continue_from] * count
    if len(continue_from) != count:
        raise ValueError(f"{len(continue_from)} answer starts for {count} chats")
    return list(continue_from)
