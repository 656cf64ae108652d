from __future__ import annotations

import pytest

from threadwise.auth.gate import bearer_token, check_metrics_token
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


def test_bearer_token() -> None:
    assert bearer_token(None) is None
    assert bearer_token("  ") is None
    assert bearer_token("Bearer abc.def") == "abc.def"
    assert bearer_token("BEARER   abc ") == "abc"
    for bad in ("Bearer", "Bearer  ", "Basic abc", "abc.def.ghi"):
        with pytest.raises(ServiceError) as caught:
            bearer_token(bad)
        assert caught.value.code is ErrorCode.INVALID_TOKEN


def test_metrics_token() -> None:
    check_metrics_token(None, None)  # not configured: open
    check_metrics_token("Bearer anything", None)
    check_metrics_token("Bearer s3cret-metrics", "s3cret-metrics")
    for header, code in [
        (None, ErrorCode.MISSING_TOKEN),
        ("Bearer wrong", ErrorCode.INVALID_TOKEN),
        ("Basic s3cret-metrics", ErrorCode.INVALID_TOKEN),
    ]:
        with pytest.raises(ServiceError) as caught:
            check_metrics_token(header, "s3cret-metrics")
        assert caught.value.code is code
