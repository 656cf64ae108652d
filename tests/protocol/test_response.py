"""Envelopes as the wire shows them: success without an error key, errors with their code."""

from __future__ import annotations

from threadwise.protocol import (
    ErrorCode,
    Request,
    ResponseItem,
    completed_envelope,
    error_envelope,
    results_envelope,
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


def test_results_envelope_has_one_result_per_list() -> None:
    items = [[ResponseItem(content="hola", type="translation", targetLanguage="es")], []]
    wire = results_envelope("translate", items, _request()).to_wire()
    assert [len(r["response"]) for r in wire["message"]["results"]] == [1, 0]
    assert wire["message"]["results"][0]["response"][0]["targetLanguage"] == "es"
