"""One request to the server as the OpenAI API has it: the payload sent, and the streamed
answer read back (cut at a ``stop`` the server ignored, without an echoed answer start)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx2

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage
from threadwise.engines.remote import servers
from threadwise.engines.remote.prefill import EchoFilter, with_instruction
from threadwise.engines.remote.stream import deltas
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

Emit = Callable[[str], None]


@dataclass(frozen=True)
class Ask:
    messages: list[ChatMessage]
    max_tokens: int
    deadline: Deadline | None
    continue_from: str
    stop: Sequence[str]


class Again(Exception):
    """A failure worth another attempt; ``error`` answers the request when none is left."""

    def __init__(self, error: ServiceError, after: float | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.after = after


def payload(
    ask: Ask, traits: servers.ServerTraits, model: str | None, max_tokens: int
) -> dict[str, Any]:
    """The body of ``POST /chat/completions`` for ``ask``, on a server with ``traits``."""
    messages = ask.messages
    fields = dict(traits.fields)
    if ask.continue_from and traits.continues == "instruction":
        messages = with_instruction(messages, ask.continue_from)
    elif ask.continue_from:
        messages = [*messages, {"role": "assistant", "content": ask.continue_from}]
        if traits.continues == "flag":
            fields |= {"continue_final_message": True, "add_generation_prompt": False}
    body: dict[str, Any] = {
        "messages": messages,
        "stream": True,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        **fields,
    }
    if model:
        body["model"] = model
    if ask.stop:
        body["stop"] = list(ask.stop)[:4]  # the OpenAI API takes up to four
    if traits.usage:
        body["stream_options"] = {"include_usage": True}
    return body


@dataclass(frozen=True)
class Streamed:
    """How a streamed answer ended: its finish reason, the usage the server reported, and
    when its first and last pieces of text came (``time.perf_counter``)."""

    finish: str
    usage: object
    pieces: int
    first: float
    last: float

    def count(self, key: str) -> int:
        """A token count of ``usage`` (0 when the server gave none)."""
        value = self.usage.get(key) if isinstance(self.usage, dict) else None
        return value if isinstance(value, int) and value >= 0 else 0


async def read_answer(
    response: httpx2.Response,
    ask: Ask,
    echo: EchoFilter | None,
    emit: Emit | None,
    written: list[str],
    host: str,
) -> Streamed:
    """The answer from its deltas; ``written`` holds its text so far (passed on to ``emit``
    as it comes)."""
    finish: str | None = None
    usage = None
    pieces = 0
    first = last = 0.0

    def write(text: str) -> None:
        if text:
            written.append(text)
            if emit is not None:
                emit(text)

    async for delta in deltas(response, host):
        if delta.text:
            pieces += 1
            last = time.perf_counter()
            first = first or last
            write(echo.feed(delta.text) if echo else delta.text)
        finish = delta.finish_reason or finish
        usage = delta.usage or usage
        if ask.stop and _cut(written, ask.stop):
            finish = "stop"  # a server that ignored ``stop``: closed here
            break
    if echo is not None:
        write(echo.finish())
    if finish is None:
        # Ended without saying why: interrupted (llama-cpp-python does that for a newer
        # request unless started with --interrupt_requests False) or cut off.
        error = ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The model server at {host} ended its answer without finishing it. Retry the request.",
        )
        if written and emit is not None:
            raise error
        raise Again(error)
    return Streamed(finish, usage, pieces, first, last)


def _cut(written: list[str], stops: Sequence[str]) -> bool:
    """Cut ``written`` before the first of ``stops`` in it; whether there was one."""
    text = "".join(written)
    at = min((i for i in (text.find(s) for s in stops) if i >= 0), default=-1)
    if at < 0:
        return False
    written[:] = [text[:at]]
    return True
