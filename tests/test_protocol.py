from __future__ import annotations

from typing import Any

import pytest

from threadwise.protocol import (
    MAX_ECHOED_ID_LENGTH,
    ErrorCode,
    Request,
    RequestSettings,
    ResponseItem,
    completed_envelope,
    echoed_id,
    error_envelope,
    results_envelope,
    socket_reply,
)


def _request() -> Request:
    return Request.model_validate(
        {
            "requestId": "r-1",
            "attributes": {"variant": "b"},
            "connections": {"threadId": "t"},
            "context": {"organizationId": "o"},
            "scope": {"conversations": [{"messages": [{"content": "hi"}]}]},
        }
    )


def test_completed_envelope_has_no_error_key() -> None:
    wire = completed_envelope("summarize", [ResponseItem(content="s", type="summary")]).to_wire()
    assert wire == {
        "action": "superpower",
        "actionType": "summarize",
        "state": "completed",
        "message": {"results": [{"response": [{"content": "s", "type": "summary"}]}]},
    }


def test_envelopes_echo_request_id_and_upper_cased_variant() -> None:
    wire = completed_envelope("summarize", [], _request()).to_wire()
    assert wire["requestId"] == "r-1"
    assert wire["variant"] == "B"


def test_error_envelope_shape() -> None:
    wire = error_envelope("summarize", ErrorCode.OVERLOADED, "busy").to_wire()
    assert wire["state"] == "error"
    assert wire["actionType"] == "summarize"
    assert wire["error"] == {"code": "OVERLOADED", "message": "busy", "retryable": True}
    assert wire["message"]["results"][0]["response"][0] == {
        "content": "busy",
        "error_code": "OVERLOADED",
    }


def test_every_code_has_a_status() -> None:
    for code in ErrorCode:
        assert 400 <= code.http_status < 600
    assert ErrorCode.REQUIRED_FIELDS_MISSING.http_status == 422
    assert ErrorCode.OVERLOADED.http_status == 503
    assert not ErrorCode.INVALID_JSON.retryable


def test_results_envelope_has_one_result_per_list() -> None:
    items = [[ResponseItem(content="hola", type="translation", targetLanguage="es")], []]
    wire = results_envelope("translate", items, _request()).to_wire()
    assert [len(r["response"]) for r in wire["message"]["results"]] == [1, 0]
    assert wire["message"]["results"][0]["response"][0]["targetLanguage"] == "es"


def test_timestamps_keep_the_callers_text_and_settings_take_translate_extensions() -> None:
    request = Request.model_validate(
        {
            "connections": {"threadId": "t"},
            "context": {"organizationId": "o"},
            "settings": {"targetLanguages": ["es-ES", "fr"], "translationMode": "fast"},
            "scope": {
                "conversations": [
                    {"messages": [{"content": "hi", "timestamp": "2026-03-02T14:05:11.000Z"}]}
                ]
            },
        }
    )
    message = request.scope.conversations[0].messages[0]
    assert message.timestamp is not None and message.timestamp.minute == 5
    assert message.timestamp_text == "2026-03-02T14:05:11.000Z"
    assert request.settings.targetLanguages == ["es-ES", "fr"]
    assert request.settings.translationMode == "fast"


@pytest.mark.parametrize("absent", [None, "", " "])
def test_every_optional_setting_takes_null_and_blank_as_not_set(absent: Any) -> None:
    # The AsyncAPI document gives null as their default; an empty string counts as absent.
    names = list(RequestSettings.model_fields)
    settings = RequestSettings.model_validate(dict.fromkeys(names, absent))
    assert settings == RequestSettings()


def test_max_response_length_is_a_non_negative_integer_in_json_schema() -> None:
    schema = RequestSettings.model_json_schema()["properties"]["maxResponseLength"]
    assert schema["anyOf"] == [{"minimum": 0, "type": "integer"}, {"type": "null"}]
    assert "ge" not in schema


def test_echoed_ids_are_cut_to_the_limit() -> None:
    assert echoed_id("x" * 500) == "x" * MAX_ECHOED_ID_LENGTH
    assert echoed_id("short") == "short"
    assert echoed_id(None) is None
    reply = socket_reply(
        error_envelope("translate", ErrorCode.INVALID_JSON, "bad"),
        "c" * 500,
        "translate",
        "t" * 500,
    ).to_wire()
    assert reply["correlationId"] == reply["headers"]["correlationId"] == "c" * 128
    assert reply["headers"]["traceId"] == "t" * 128
