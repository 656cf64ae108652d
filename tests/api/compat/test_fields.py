"""A compatible API's fields, however the client sent them."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.requests import Request

from threadwise.api.compat.fields import Fields
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode


def read(body: bytes, content_type: str = "", query: str = "", limit: int = 10_000) -> Fields:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "query_string": query.encode(),
        "headers": [(b"content-type", content_type.encode())] if content_type else [],
    }

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": body, "more_body": False}

    return asyncio.run(Fields.read(Request(scope, receive), limit))


def test_a_repeated_form_field_is_a_list_and_a_single_one_a_text() -> None:
    fields = read(b"text=Hello&text=Good+night&target_lang=DE", "application/x-www-form-urlencoded")
    assert fields.texts("text") == (["Hello", "Good night"], True)
    assert fields.text("target_lang") == "DE"
    one = read(b"text=Hello", "application/x-www-form-urlencoded")
    assert one.texts("text") == (["Hello"], False)


def test_json_over_the_query_string() -> None:
    body = json.dumps({"q": ["a", "b"], "source": "auto"}).encode()
    fields = read(body, "application/json; charset=utf-8", query="api_key=k&source=en")
    assert fields.texts("q") == (["a", "b"], True)
    assert fields.text("source") == "auto" and fields.text("api_key") == "k"


def test_flags_and_name_lists() -> None:
    fields = read(b"a=1&b=false&tags=x,y&tags=z&bad=maybe", "application/x-www-form-urlencoded")
    assert fields.flag("a") is True and fields.flag("b") is False and fields.flag("c") is None
    assert fields.names("tags") == ["x", "y", "z"]
    with pytest.raises(ServiceError, match="'bad' must be true or false"):
        fields.flag("bad")


@pytest.mark.parametrize(
    ("body", "content_type", "code"),
    [
        (b"{not json", "application/json", ErrorCode.PAYLOAD_SCHEMA_MISMATCH),
        (b"[1, 2]", "application/json", ErrorCode.PAYLOAD_SCHEMA_MISMATCH),
        (b"q=\xff\xfe", "application/x-www-form-urlencoded", ErrorCode.PAYLOAD_SCHEMA_MISMATCH),
        (b"q=" + b"a" * 20_000, "application/x-www-form-urlencoded", ErrorCode.PAYLOAD_TOO_LARGE),
    ],
)
def test_bodies_refused_say_what_to_fix(body: bytes, content_type: str, code: ErrorCode) -> None:
    with pytest.raises(ServiceError) as refused:
        read(body, content_type)
    assert refused.value.code == code and refused.value.message


def test_missing_or_blank_texts_are_a_request_to_fix() -> None:
    for body in (b"", b"q=", b"q=+++"):
        with pytest.raises(ServiceError, match="'q' not specified"):
            read(body, "application/x-www-form-urlencoded").texts("q")
    assert read(b'{"q": ["", "a"]}', "application/json").texts("q") == (["", "a"], True)
