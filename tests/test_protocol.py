from __future__ import annotations

from threadwise.protocol import (
    ErrorCode,
    Request,
    ResponseItem,
    completed_envelope,
    error_envelope,
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
