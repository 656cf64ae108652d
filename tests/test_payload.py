from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import minimal_body
from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, field_path, parse_message_body
from threadwise.protocol import ErrorCode

LIMITS = PayloadLimits()


def error_of(data: Any, limits: PayloadLimits = LIMITS) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        parse_message_body(data, limits)
    return caught.value


def test_minimal_body_parses() -> None:
    body = parse_message_body(minimal_body(), LIMITS)
    assert body.request.connections.threadId == "thread-1"
    assert body.request.scope.conversations[0].messages[0].content == "My parcel 7781 is late."


def test_missing_conversations_is_named_by_path() -> None:
    data = minimal_body()
    del data["request"]["scope"]["conversations"]
    error = error_of(data)
    assert error.code is ErrorCode.REQUIRED_FIELDS_MISSING
    assert "request.scope.conversations" in error.message


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"connections": {"threadId": ""}}, "request.connections.threadId"),
        ({"context": {"organizationId": "  "}}, "request.context.organizationId"),
        ({"scope": {"conversations": []}}, "request.scope.conversations"),
    ],
)
def test_empty_strings_and_lists_count_as_absent(change: dict[str, Any], path: str) -> None:
    error = error_of(minimal_body(**change))
    assert error.code is ErrorCode.REQUIRED_FIELDS_MISSING
    assert path in error.message


def test_message_without_content_is_named() -> None:
    data = minimal_body()
    data["request"]["scope"]["conversations"][0]["messages"][1]["content"] = ""
    error = error_of(data)
    assert "request.scope.conversations[0].messages[1].content" in error.message


def test_ids_are_opaque_and_placeholders_and_unknown_keys_are_fine() -> None:
    data = minimal_body(
        requestId="89012345-6789-0123-456789abcdef",
        attributes={"variant": "b", "other": 1},
        products=[{"id": ""}],
        cursor={"since": "", "until": ""},
        settings={"disableStream": True, "maxResponseLength": 0, "overrideOutputLanguage": ""},
    )
    data["headers"] = {"timestamp": "", "networkLatencyMs": 120}
    data["session"].update({"sessionId": "", "interface": {"type": ""}})
    data["request"]["scope"]["conversations"][0]["metadata"] = []
    body = parse_message_body(data, LIMITS)
    assert body.request.requestId == "89012345-6789-0123-456789abcdef"
    assert body.request.settings.overrideOutputLanguage is None
    assert body.session.sessionId is None


def test_malformed_timestamp_is_a_schema_mismatch_naming_its_path() -> None:
    data = minimal_body()
    data["request"]["scope"]["conversations"][0]["messages"][0]["timestamp"] = "yesterday"
    error = error_of(data)
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "request.scope.conversations[0].messages[0].timestamp" in error.message
    assert "'yesterday'" in error.message


def test_wrong_type_is_a_schema_mismatch() -> None:
    error = error_of(minimal_body(scope={"conversations": "none"}))
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "request.scope.conversations" in error.message


def test_a_body_that_is_not_an_object() -> None:
    error = error_of([1, 2])
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "array" in error.message


def test_overlong_id_is_rejected() -> None:
    error = error_of(minimal_body(connections={"threadId": "x" * 257}))
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH


@pytest.mark.parametrize(
    ("limits", "fragment"),
    [
        (PayloadLimits(max_conversations=0), "conversations"),
        (PayloadLimits(max_messages=1), "2 messages"),
        (PayloadLimits(max_message_chars=5), "messages[0].content"),
    ],
)
def test_limits(limits: PayloadLimits, fragment: str) -> None:
    error = error_of(minimal_body(), limits)
    assert error.code is ErrorCode.PAYLOAD_TOO_LARGE
    assert fragment in error.message


def test_field_path() -> None:
    assert field_path(("request", "scope", "conversations", 0, "messages")) == (
        "request.scope.conversations[0].messages"
    )
