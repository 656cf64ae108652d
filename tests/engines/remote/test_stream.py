from __future__ import annotations

import time
from email.utils import formatdate

import httpx2
import pytest

from threadwise.engines.remote.stream import error_message, retry_after


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"Retry-After": "soon"}, None),
        ({}, None),
        ({"Retry-After": "-4"}, 0.0),
    ],
)
def test_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(httpx2.Headers(headers)) == seconds


def test_retry_after_as_an_http_date() -> None:
    later = formatdate(time.time() + 30, usegmt=True)
    seconds = retry_after(httpx2.Headers({"Retry-After": later}))
    assert seconds is not None and 25 <= seconds <= 31


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b'{"error": {"message": "Model is overloaded", "code": 503}}', "Model is overloaded"),
        (b'{"detail": "Invalid API key"}', "Invalid API key"),
        (b"upstream connect error", "upstream connect error"),
        (b"", "no details"),
        ("x" * 500, "x" * 200),
    ],
)
def test_error_message(body: bytes | str, said: str) -> None:
    assert error_message(body) == said
