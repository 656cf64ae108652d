"""Read a superpower request body: media type, size limit, JSON, then the message schema."""

from __future__ import annotations

from fastapi import Request

from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, decode_json, parse_message_body
from threadwise.protocol import ErrorCode, MessageBody


async def read_message_body(request: Request, max_bytes: int, limits: PayloadLimits) -> MessageBody:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise ServiceError(
            ErrorCode.UNSUPPORTED_MEDIA_TYPE,
            f"The body must be JSON sent with 'Content-Type: application/json', "
            f"got {media_type or 'no Content-Type'!r}.",
        )
    raw = await _read_limited(request, max_bytes)
    data = decode_json(raw, "The body", "Send UTF-8 JSON: an object with 'session' and 'request'.")
    return parse_message_body(data, limits)


async def _read_limited(request: Request, max_bytes: int) -> bytes:
    too_large = ServiceError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        f"The body is larger than the {max_bytes // 1024} KiB limit. Send fewer or shorter "
        "conversations per request.",
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
