from __future__ import annotations

from threadwise.protocol import ErrorCode, error_envelope, socket_reply


def test_socket_replies_cut_echoed_ids_to_the_limit() -> None:
    reply = socket_reply(
        error_envelope("translate", ErrorCode.INVALID_JSON, "bad"),
        "c" * 500,
        "translate",
        "t" * 500,
    ).to_wire()
    assert reply["correlationId"] == reply["headers"]["correlationId"] == "c" * 128
    assert reply["headers"]["traceId"] == "t" * 128
