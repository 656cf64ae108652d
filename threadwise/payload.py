"""Turn a decoded JSON payload into a ``MessageBody``, or a ``ServiceError`` naming the field."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, MessageBody


@dataclass(frozen=True)
class PayloadLimits:
    max_conversations: int = 50
    max_messages: int = 2000
    max_message_chars: int = 32_000


_MISSING_TYPES = frozenset({"missing"})

M = TypeVar("M", bound=BaseModel)


def parse_message_body(data: Any, limits: PayloadLimits) -> MessageBody:
    if not isinstance(data, dict):
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"The body must be a JSON object with 'session' and 'request', "
            f"got a JSON {json_type(data)}.",
        )
    body = validate(MessageBody, data)
    check_limits(body, limits)
    return body


def validate(model: type[M], data: Any) -> M:
    """``data`` as ``model``; ``REQUIRED_FIELDS_MISSING`` or ``PAYLOAD_SCHEMA_MISMATCH``
    naming the fields otherwise."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _to_service_error(exc.errors()) from None


def field_path(loc: Sequence[int | str]) -> str:
    """``('request', 'scope', 'conversations', 0)`` → ``request.scope.conversations[0]``."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
    return path


def _to_service_error(errors: list[ErrorDetails]) -> ServiceError:
    missing = [e for e in errors if e["type"] in _MISSING_TYPES]
    if missing:
        paths = ", ".join(dict.fromkeys(field_path(e["loc"]) for e in missing))
        noun, pronoun = ("field is", "it") if len(missing) == 1 else ("fields are", "them")
        return ServiceError(
            ErrorCode.REQUIRED_FIELDS_MISSING,
            f"Required {noun} missing or empty: {paths}. Add {pronoun} to the request body "
            "and send it again.",
        )
    details = "; ".join(f"{field_path(e['loc'])}: {e['msg']}" for e in errors[:5])
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return ServiceError(
        ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
        f"The request body does not match the message schema: {details}{more}.",
    )


def check_limits(body: MessageBody, limits: PayloadLimits) -> None:
    conversations = body.request.scope.conversations
    if len(conversations) > limits.max_conversations:
        raise ServiceError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"request.scope.conversations has {len(conversations)} conversations; at most "
            f"{limits.max_conversations} are accepted per request. Split it into several requests.",
        )
    total = sum(len(c.messages) for c in conversations)
    if total > limits.max_messages:
        raise ServiceError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"The request has {total} messages; at most {limits.max_messages} are accepted per "
            "request. Split it into several requests.",
        )
    for ci, conversation in enumerate(conversations):
        for mi, message in enumerate(conversation.messages):
            if len(message.content) > limits.max_message_chars:
                raise ServiceError(
                    ErrorCode.PAYLOAD_TOO_LARGE,
                    f"request.scope.conversations[{ci}].messages[{mi}].content has "
                    f"{len(message.content)} characters; at most {limits.max_message_chars} "
                    "are accepted per message.",
                )


def json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else type(value).__name__


def character_count(body: MessageBody) -> int:
    """The characters of every message: what an organization's character rate counts."""
    return sum(
        len(message.content)
        for conversation in body.request.scope.conversations
        for message in conversation.messages
    )
