"""Turn a request's JSON into a ``MessageBody``, or a ``ServiceError`` naming what to fix."""

from __future__ import annotations

import json
import re
import sys
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

# A request is 8 levels deep (frame, payload, request, scope, conversations, a conversation,
# messages, a message); unknown keys may add the caller's metadata, but not without bound:
# the decoder, the validators and the serializers all recurse.
MAX_JSON_DEPTH = 32
# Half of a UTF-16 pair without its other half: not a character, and not encodable as UTF-8.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

M = TypeVar("M", bound=BaseModel)


def decode_json(raw: str | bytes, what: str, hint: str) -> Any:
    """``raw`` decoded, or ``INVALID_JSON`` saying why: ``"{what} cannot be read …. {hint}"``.

    Refused as well as malformed text: nesting deeper than ``MAX_JSON_DEPTH``, numbers of
    more digits than Python converts, and NaN or Infinity (not JSON). A lone UTF-16 surrogate
    (``"\\ud83d"``: half an emoji, cut by a client) becomes U+FFFD, as a browser's UTF-8
    encoder makes it, so that the text can reach the engines and the logs.
    """

    def refuse(reason: str) -> ServiceError:
        return ServiceError(
            ErrorCode.INVALID_JSON, f"{what} cannot be read as JSON: {reason}. {hint}"
        )

    def no_constants(name: str) -> Any:
        raise refuse(f"{name} is not a JSON number")

    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
        data = json.loads(text, parse_constant=no_constants)
    except UnicodeDecodeError as exc:
        raise refuse(f"byte {exc.start} is not UTF-8 ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise refuse(f"{exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise refuse(_too_deep()) from None
    except ValueError:  # Python's limit on the digits of an integer
        digits = sys.get_int_max_str_digits()
        raise refuse(f"a number has more than {digits} digits, more than any field takes") from None
    if _deeper_than(data, MAX_JSON_DEPTH):
        raise refuse(_too_deep())
    if _SURROGATE_ESCAPE.search(text) or _LONE_SURROGATE.search(text):
        return _without_lone_surrogates(data)
    return data


def _too_deep() -> str:
    return f"arrays and objects are nested more than {MAX_JSON_DEPTH} levels deep"


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels (level by level, not by
    recursion: this is what keeps deep input from recursing)."""
    level, depth = [data], 0
    while level:
        containers = [node for node in level if isinstance(node, dict | list)]
        if not containers:
            return False
        depth += 1
        if depth > limit:
            return True
        level = [
            child
            for node in containers
            for child in (node.values() if isinstance(node, dict) else node)
        ]
    return False


def _without_lone_surrogates(data: Any) -> Any:
    # Called only on data no deeper than MAX_JSON_DEPTH.
    if isinstance(data, str):
        return _LONE_SURROGATE.sub("\ufffd", data)
    if isinstance(data, list):
        return [_without_lone_surrogates(item) for item in data]
    if isinstance(data, dict):
        return {
            _without_lone_surrogates(key): _without_lone_surrogates(value)
            for key, value in data.items()
        }
    return data


def parse_message_body(data: Any, limits: PayloadLimits) -> MessageBody:
    body = validate(
        MessageBody,
        json_object(data, "The body must be a JSON object with 'session' and 'request'"),
    )
    check_limits(body, limits)
    return body


def json_object(data: Any, expected: str) -> dict[str, Any]:
    """``data``, if it is a JSON object; else ``PAYLOAD_SCHEMA_MISMATCH``: ``expected``
    ("The body must be a JSON object with …"), then what it is."""
    if not isinstance(data, dict):
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH, f"{expected}, got a JSON {json_type(data)}."
        )
    return data


def validate(model: type[M], data: Any, schema: str = "the message schema") -> M:
    """``data`` as ``model``; ``REQUIRED_FIELDS_MISSING`` or ``PAYLOAD_SCHEMA_MISMATCH``
    naming the fields (and ``schema``, what the body should match) otherwise."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _to_service_error(exc.errors(), schema) from None


def field_path(loc: Sequence[int | str]) -> str:
    """``('request', 'scope', 'conversations', 0)`` → ``request.scope.conversations[0]``."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
    return path


def _to_service_error(errors: list[ErrorDetails], schema: str) -> ServiceError:
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
        f"The request body does not match {schema}: {details}{more}.",
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
    context = body.request.settings.translationContext
    if context is not None and len(context) > limits.max_message_chars:
        raise ServiceError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"request.settings.translationContext has {len(context)} characters; at most "
            f"{limits.max_message_chars} are accepted, as for a message. Shorten it.",
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


def charged_characters(body: MessageBody, action: str) -> int:
    """What an organization's character rate counts: the messages' characters, for a
    translation once per target language (each is the whole work again)."""
    targets = body.request.settings.targetLanguages if action == "translate" else None
    return character_count(body) * max(1, len(targets or ()))


def character_count(body: MessageBody) -> int:
    """The characters of every message: what an organization's character rate counts."""
    return sum(
        len(message.content)
        for conversation in body.request.scope.conversations
        for message in conversation.messages
    )
