"""Read a request body: media type, size limit, JSON, then its schema. Every route with a JSON
body reads it here, once its caller's token has been checked (``deps.py``): a body is never
buffered whole before it is known to fit, and every route answers the same malformed JSON,
number or nesting with the same ``INVALID_JSON``."""

from __future__ import annotations

from typing import TypeVar

from fastapi import Request
from pydantic import BaseModel

from threadwise.errors import ServiceError
from threadwise.payload import decode_json, json_object, validate
from threadwise.protocol import ErrorCode, MessageBody

M = TypeVar("M", bound=BaseModel)


async def read_message_body(request: Request, max_bytes: int) -> MessageBody:
    """The body as a ``MessageBody``; admission checks its payload limits."""
    raw = await _read_limited(
        request, max_bytes, "Send fewer or shorter conversations per request."
    )
    data = decode_json(raw, "The body", "Send UTF-8 JSON: an object with 'session' and 'request'.")
    return validate(
        MessageBody,
        json_object(data, "The body must be a JSON object with 'session' and 'request'"),
    )


async def read_job_body(request: Request, max_bytes: int) -> tuple[MessageBody, str | None]:
    """A job's body: a ``MessageBody`` and, beside it, an optional ``webhook`` with a
    ``url``."""
    raw = await _read_limited(
        request, max_bytes, "Send fewer or shorter conversations per job, or several jobs."
    )
    data = decode_json(raw, "The body", "Send UTF-8 JSON: an object with 'session' and 'request'.")
    body = json_object(data, "The body must be a JSON object with 'session' and 'request'")
    webhook = body.pop("webhook", None)
    url: str | None = None
    if webhook is not None:
        url = webhook.get("url") if isinstance(webhook, dict) else None
        if not isinstance(url, str) or not url.strip() or len(url) > 2048:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                "webhook must be an object whose url is the https:// address (at most 2048 "
                'characters) to call when the job ends: {"webhook": {"url": "https://…"}}.',
            )
        url = url.strip()
    return validate(MessageBody, body), url


async def read_model(request: Request, model: type[M], max_bytes: int, smaller: str) -> M:
    """The body as ``model`` (named so in /openapi.json); ``smaller`` says how to send less."""
    raw = await _read_limited(request, max_bytes, smaller)
    name = model.__name__
    data = decode_json(raw, "The body", f"Send UTF-8 JSON: an object as {name} describes.")
    expected = f"The body must be a JSON object ({name} in /openapi.json)"
    return validate(model, json_object(data, expected), f"{name} (see /openapi.json)")


async def _read_limited(request: Request, max_bytes: int, smaller: str) -> bytes:
    """The body, refused (415) unless it is JSON, and (413) as soon as it is known to be
    larger than ``max_bytes``: by its Content-Length before any of it is read, else while it
    is read, never after buffering it whole."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise ServiceError(
            ErrorCode.UNSUPPORTED_MEDIA_TYPE,
            f"The body must be JSON sent with 'Content-Type: application/json', "
            f"got {media_type or 'no Content-Type'!r}.",
        )
    too_large = ServiceError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        f"The body is larger than the {max_bytes // 1024} KiB limit. {smaller}",
    )
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)
