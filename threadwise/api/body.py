"""Read a request body: media type, size limit, JSON, then its schema. Every route with a JSON
body reads it here, once its caller's token has been checked (``deps.py``): a body is never
buffered whole before it is known to fit, and every route answers the same malformed JSON,
number or nesting with the same ``INVALID_JSON``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from fastapi import Request
from pydantic import BaseModel

from threadwise.errors import ServiceError
from threadwise.payload import decode_json, json_object, json_type, validate
from threadwise.protocol import ErrorCode, MessageBody
from threadwise.serving.idempotency import check_key

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
    expected = "The body must be a JSON object with 'session' and 'request'"
    return job_body(json_object(data, expected))


def job_body(data: dict[str, Any]) -> tuple[MessageBody, str | None]:
    """A job's body read from its JSON object: the ``MessageBody`` and its webhook's URL."""
    body = dict(data)
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


@dataclass(frozen=True)
class JobItem:
    """One job of a batch submission, as read."""

    operation: Literal["summarize", "translate"]
    body: MessageBody
    webhook_url: str | None
    idempotency_key: str | None


async def read_job_batch(
    request: Request, max_bytes: int, max_jobs: int
) -> list[JobItem | ServiceError]:
    """A batch submission's jobs, each read or refused on its own (a refusal names its
    ``jobs[i]``); the body as a whole refused if it is not ``{"jobs": [...]}`` of 1 to
    ``max_jobs`` objects."""
    raw = await _read_limited(request, max_bytes, "Send fewer jobs per batch.")
    data = decode_json(raw, "The body", 'Send UTF-8 JSON: {"jobs": [...]}.')
    jobs = json_object(data, 'The body must be a JSON object {"jobs": [...]}').get("jobs")
    if not isinstance(jobs, list) or not 1 <= len(jobs) <= max_jobs:
        got = f"{len(jobs)} jobs" if isinstance(jobs, list) else f"a JSON {json_type(jobs)}"
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"jobs must be a list of 1 to {max_jobs} jobs, got {got}: send more batches.",
        )
    return [_job_item(item, f"jobs[{index}]") for index, item in enumerate(jobs)]


def _job_item(item: Any, where: str) -> JobItem | ServiceError:
    """The job, or why it is refused, said of ``where`` (``jobs[3]: …``)."""
    try:
        fields = json_object(item, "It must be a JSON object with operation and body")
        operation = fields.get("operation")
        if operation not in ("summarize", "translate"):
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                f"operation must be 'summarize' or 'translate', got {str(operation)[:80]!r}.",
            )
        key = fields.get("idempotencyKey")
        if key is not None and not isinstance(key, str):
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH, "idempotencyKey must be a string."
            )
        body = json_object(
            fields.get("body"), f"body must be the JSON object POST /jobs/{operation} takes"
        )
        message, url = job_body(body)
        checked = check_key(key, "idempotencyKey") if key is not None else None
        return JobItem(operation, message, url, checked)
    except ServiceError as exc:
        return ServiceError(exc.code, f"{where}: {exc.message}", reason=exc.reason)


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
