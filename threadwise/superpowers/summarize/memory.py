"""What was said of a thread, so that its next, longer version is summarized from there."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from threadwise.engines.base import ChatMessage


@dataclass(frozen=True)
class ThreadMemory:
    """What was said of a thread's first ``lines`` transcript lines: the chat that produced
    its summary (kept as it was, so that the engine's saved state of it is reused) and the
    summary as checked (in English, speakers called as in the prompt). A later request whose
    transcript extends those lines is summarized from here: only the new messages are
    processed, and only a summary written."""

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
