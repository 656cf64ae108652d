"""Field types of the contract as the API reads them: an empty string counts as absent, IDs
are opaque strings of bounded length, timestamps ISO 8601; and the limits on what is echoed."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar, overload

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

MAX_ID_LENGTH = 256
# Target languages of one translate request (each is the whole work again).
MAX_TARGETS = 10
# What a reply echoes of a caller's correlation and trace IDs (REST headers, WebSocket frames).
MAX_ECHOED_ID_LENGTH = 128


def blank_to_none(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        return None
    return value


def required(value: Any) -> Any:
    value = blank_to_none(value)
    if value is None:
        raise PydanticCustomError("missing", "Field required")
    return value


def _parse_timestamp(value: Any) -> Any:
    value = blank_to_none(value)
    if value is None or isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("timestamp_type", "expected an ISO 8601 string")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise PydanticCustomError(
            "timestamp_format",
            "expected an ISO 8601 timestamp such as 2026-03-02T14:05:11.000Z, got '{value}'",
            {"value": value[:64]},
        ) from None


def redact_choice(value: Any) -> Any:
    """true, false, "restore" or "mask" exactly (or not set): pydantic's lax bool would read
    "yes", "off" or 0 as a boolean, and a caller who meant something else would get it."""
    value = blank_to_none(value)
    if value is None or isinstance(value, bool) or value in ("restore", "mask"):
        return value
    raise PydanticCustomError(
        "redact_choice",
        "expected true, false, 'restore' or 'mask', got {value}",
        {"value": repr(value)[:64]},
    )


def non_empty_list(value: list[Any]) -> list[Any]:
    if not value:
        raise PydanticCustomError("missing", "must be a non-empty list")
    return value


_IdText = Annotated[str, Field(max_length=MAX_ID_LENGTH)]
Id = Annotated[_IdText, BeforeValidator(required)]
OptionalId = Annotated[_IdText | None, BeforeValidator(blank_to_none)]
Text = Annotated[str, BeforeValidator(required)]
OptionalText = Annotated[str | None, BeforeValidator(blank_to_none)]
Timestamp = Annotated[datetime | None, BeforeValidator(_parse_timestamp)]
T = TypeVar("T")
# An optional setting: null, "" and " " all mean "not set", whatever its type.
Setting = Annotated[T | None, BeforeValidator(blank_to_none)]
RedactMode = Literal["restore", "mask"]


class FrozenModel(BaseModel):
    """A part of a request: unknown keys ignored, immutable once read."""

    model_config = ConfigDict(extra="ignore", frozen=True)


@overload
def echoed_id(value: str, limit: int = MAX_ECHOED_ID_LENGTH) -> str: ...
@overload
def echoed_id(value: None, limit: int = MAX_ECHOED_ID_LENGTH) -> None: ...
@overload
def echoed_id(value: str | None, limit: int = MAX_ECHOED_ID_LENGTH) -> str | None: ...
def echoed_id(value: str | None, limit: int = MAX_ECHOED_ID_LENGTH) -> str | None:
    """A caller's ID as replies and logs echo it: at most ``limit`` characters, so that no
    reply grows with what the caller sent."""
    return None if value is None else value[:limit]
