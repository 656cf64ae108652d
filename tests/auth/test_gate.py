from __future__ import annotations

import pytest

from threadwise.auth.gate import bearer_token, check_metrics_access
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


def test_metrics_access() -> None:
    # No metrics token configured: this machine only.
    check_metrics_access(None, None, "127.0.0.1")
    check_metrics_access("Bearer anything", None, "::1")
    for address in ("192.0.2.1", "2001:db8::1", "testclient", None):
        with pytest.raises(ServiceError) as caught:
            check_metrics_access(None, None, address)
        assert caught.value.code is ErrorCode.MISSING_TOKEN
    # A metrics token configured: it, from anywhere.
    check_metrics_access("Bearer s3cret-metrics", "s3cret-metrics", "192.0.2.1")
    for header, code in [
        (None, ErrorCode.MISSING_TOKEN),
        ("Bearer wrong", ErrorCode.INVALID_TOKEN),
        ("Basic s3cret-metrics", ErrorCode.INVALID_TOKEN),
    ]:
        with pytest.raises(ServiceError) as caught:
            check_metrics_access(header, "s3cret-metrics", "127.0.0.1")
        assert caught.value.code is code
