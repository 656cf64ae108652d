from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import minimal_body
from threadwise.errors import ServiceError
from threadwise.payload import (
    MAX_JSON_DEPTH,
    PayloadLimits,
    character_count,
    charged_characters,
    decode_json,
    field_path,
    parse_message_body,
)
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


# --- decoding JSON -------------------------------------------------------------------------


def decode_error(raw: str | bytes) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        decode_json(raw, "The body", "Send JSON.")
    assert caught.value.code is ErrorCode.INVALID_JSON
    assert caught.value.message.startswith("The body cannot be read as JSON: ")
    assert caught.value.message.endswith(" Send JSON.")
    return caught.value


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1_000, 100_000])
@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_nesting_deeper_than_the_limit_is_invalid_json(opening: str, depth: int) -> None:
    closing = "]" if opening == "[" else "}"
    error = decode_error(opening * depth + "1" + closing * depth)
    assert f"nested more than {MAX_JSON_DEPTH} levels deep" in error.message


def test_nesting_up_to_the_limit_is_read() -> None:
    assert decode_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "The body", "") is not None


def test_an_integer_longer_than_python_converts_is_invalid_json() -> None:
    body = json.dumps(minimal_body()).replace('"thread-1"', "1" * 5_000)
    assert "more than 4300 digits" in decode_error(body).message


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    assert f"{constant} is not a JSON number" in decode_error(f'{{"a": {constant}}}').message


def test_bytes_that_are_not_utf8_are_invalid_json() -> None:
    assert "not UTF-8" in decode_error(b'{"a": "\xff"}').message


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    # Half an emoji (a UTF-16 string cut in two) has no UTF-8 form: the engines could not
    # take it. A pair is one character and stays one.
    raw = '{"\\udc00key": ["\\ud83d and \\ud83d\\ude00", "\\udfff"]}'
    for given in (raw, raw.encode()):
        assert decode_json(given, "The body", "") == {
            "\ufffdkey": ["\ufffd and \U0001f600", "\ufffd"]
        }


def test_a_body_with_a_lone_surrogate_in_its_content_parses() -> None:
    text = json.dumps(minimal_body()).replace("My parcel", "\\ud800My parcel")
    body = parse_message_body(decode_json(text, "The body", ""), LIMITS)
    assert body.request.scope.conversations[0].messages[0].content.startswith("\ufffdMy parcel")


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        (True, True),
        (False, False),
        ("restore", "restore"),
        ("mask", "mask"),
        (None, None),
        ("", None),
    ],
)
def test_redact_personal_data_takes_booleans_and_its_two_modes(sent: Any, read: Any) -> None:
    body = parse_message_body(minimal_body(settings={"redactPersonalData": sent}), LIMITS)
    assert body.request.settings.redactPersonalData == read


@pytest.mark.parametrize("sent", ["yes", "true", "on", "off", 1, 0, "MASK", ["mask"]])
def test_redact_personal_data_takes_nothing_that_only_looks_like_a_boolean(sent: Any) -> None:
    """Read leniently, "yes" or 1 was true and "off" or 0 false: a caller who meant
    something else had data redacted, or kept, without being told."""
    error = error_of(minimal_body(settings={"redactPersonalData": sent}))
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "request.settings.redactPersonalData: expected true, false, 'restore' or 'mask'" in (
        error.message
    )


def test_translation_context_is_bounded_as_a_message_and_not_charged() -> None:
    data = minimal_body(settings={"translationContext": "About a parcel. " * 2})
    body = parse_message_body(data, LIMITS)
    assert charged_characters(body, "translate") == character_count(body)
    assert character_count(body) == sum(
        len(m["content"]) for c in data["request"]["scope"]["conversations"] for m in c["messages"]
    )
    error = error_of(data, PayloadLimits(max_message_chars=20))
    assert error.code is ErrorCode.PAYLOAD_TOO_LARGE
    assert "request.settings.translationContext has 32 characters" in error.message


@pytest.mark.parametrize(
    ("settings", "path"),
    [({"textFormat": "docx"}, "textFormat"), ({"sourceLanguage": 7}, "sourceLanguage")],
)
def test_bad_text_settings_are_schema_mismatches(settings: dict[str, Any], path: str) -> None:
    error = error_of(minimal_body(settings=settings))
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert f"request.settings.{path}" in error.message
