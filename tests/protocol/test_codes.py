from __future__ import annotations

from threadwise.protocol import ErrorCode


def test_every_code_has_a_status() -> None:
    for code in ErrorCode:
        assert 400 <= code.http_status < 600
    assert ErrorCode.REQUIRED_FIELDS_MISSING.http_status == 422
    assert ErrorCode.OVERLOADED.http_status == 503
    assert not ErrorCode.INVALID_JSON.retryable
