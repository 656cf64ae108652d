"""Reading a chat completions response: its streamed deltas, its errors, its Retry-After."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx2

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


@dataclass(frozen=True)
class Delta:
    text: str
    finish_reason: str | None
    usage: Mapping[str, Any] | None


async def deltas(response: httpx2.Response, host: str) -> AsyncIterator[Delta]:
    """The answer's pieces: each event of a stream (``data: [DONE]`` ends it), or the one
    answer of a server that did not stream."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        body = _parsed(await response.aread(), host)
        choice = _first_choice(body)
        message = choice.get("message")
        text = message.get("content") if isinstance(message, dict) else None
        yield _delta(text, choice, body)
        return
    async for event in httpx2.EventSource(response):
        if event.data.strip() == "[DONE]":
            return
        chunk = _parsed(event.data, host)
        if "error" in chunk:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                f"The model server at {host} failed while answering "
                f"({error_message(chunk)}). Retry the request.",
            )
        choice = _first_choice(chunk)
        delta = choice.get("delta")
        text = delta.get("content") if isinstance(delta, dict) else None
        yield _delta(text, choice, chunk)


def retry_after(headers: httpx2.Headers) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, or ``Retry-After`` in seconds or
    as an HTTP date; None when it says nothing usable."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def error_message(body: object) -> str:
    """What an error answer says, in at most 200 characters: OpenAI's ``{"error": {"message"}}``,
    FastAPI's ``{"detail"}``, or the text itself."""
    if isinstance(body, bytes | str):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        try:
            body = json.loads(text)
        except ValueError:
            return text.strip()[:200] or "no details"
    said: object = body
    if isinstance(body, dict):
        said = body.get("error", body.get("detail", body))
        if isinstance(said, dict):
            said = said.get("message", said)
    return str(said).strip()[:200] or "no details"


def _parsed(data: bytes | str, host: str) -> dict[str, Any]:
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        shown = data[:80] if isinstance(data, str) else data[:80].decode("utf-8", "replace")
        raise ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The model server at {host} sent {shown!r}, which is not a chat completion (JSON "
            "object); check that the engine's url is an OpenAI-compatible API.",
        )
    return parsed


def _first_choice(body: Mapping[str, Any]) -> dict[str, Any]:
    choices = body.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}


def _delta(text: object, choice: Mapping[str, Any], body: Mapping[str, Any]) -> Delta:
    finish = choice.get("finish_reason")
    usage = body.get("usage")
    return Delta(
        text if isinstance(text, str) else "",
        finish if isinstance(finish, str) else None,
        usage if isinstance(usage, dict) else None,
    )
