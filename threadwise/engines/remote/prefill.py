"""An answer begun by the caller (``continue_from``), on servers that cannot continue one.

llama.cpp's and vLLM's servers continue a trailing assistant message; the others (the OpenAI
API itself, llama-cpp-python, whose chat template always opens a new turn) are asked in the
instruction to begin their answer with the text instead. They may then write all of it again,
its end only ("Summary:" of notes ending in "Summary:"), or none of it: ``EchoFilter`` drops
what they repeat, so that what is passed on is what follows the text, as a continuing server
gives it.
"""

from __future__ import annotations

from threadwise.engines.base import ChatMessage


def with_instruction(messages: list[ChatMessage], start: str) -> list[ChatMessage]:
    """The chat, its last user message asking for an answer that begins with ``start``."""
    if "\n" in start:
        ask = f"Begin your answer with these lines, word for word, then go on:\n{start}"
    else:
        ask = f'Begin your answer with "{start}".'
    chat = list(messages)
    if chat and chat[-1]["role"] == "user":
        chat[-1] = {"role": "user", "content": f"{chat[-1]['content']}\n\n{ask}"}
    else:
        chat.append({"role": "user", "content": ask})
    return chat


class EchoFilter:
    """Turns an answer asked to begin with ``start`` into what follows ``start``: held back
    while it may still be repeating it, then passed on without the repeated part."""

    def __init__(self, start: str) -> None:
        self._start = start
        # What it may repeat: the whole, or its last lines.
        self._echoes = sorted(
            {
                start[i:].strip()
                for i in range(len(start))
                if (i == 0 or start[i - 1] == "\n") and start[i:].strip()
            },
            key=len,
            reverse=True,
        )
        self._held = ""
        self._decided = not self._echoes

    def feed(self, piece: str) -> str:
        """The text to pass on now."""
        if self._decided:
            return piece
        self._held += piece
        written = self._held.lstrip()
        if any(len(written) < len(e) and e.startswith(written) for e in self._echoes):
            return ""  # it may still be repeating
        return self._decide(written)

    def finish(self) -> str:
        """What is still held back when the answer ends."""
        if self._decided:
            return ""
        written = self._held.lstrip()
        if any(e.startswith(written) for e in self._echoes):
            self._decided = True
            return ""  # it repeated (part of) the start and stopped
        return self._decide(written)

    def _decide(self, written: str) -> str:
        self._decided = True
        echo = next((e for e in self._echoes if written.startswith(e)), None)
        if echo is not None:
            return written[len(echo) :]
        # A fresh answer: set apart from the start, as a continuation would be.
        return written if not written or self._start[-1:].isspace() else f" {written}"
