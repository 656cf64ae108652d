"""A compatible API's request fields, read as DeepL and LibreTranslate read them: the query
string, then a JSON or form body over it (some clients send a GET with a form body).

A name repeated in a form or query (``text=a&text=b``) is a list, as in a JSON body.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

from fastapi import Request

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def bad_request(message: str) -> ServiceError:
    """A request to fix: each compatible API answers it with its own status (400)."""
    return ServiceError(ErrorCode.PAYLOAD_SCHEMA_MISMATCH, message)


class Fields:
    """The fields of one request, whatever way they were sent."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    @classmethod
    async def read(cls, request: Request, max_bytes: int) -> Fields:
        values: dict[str, Any] = {}
        _merge_pairs(values, request.query_params.multi_items())
        raw = await request.body()
        if len(raw) > max_bytes:
            raise ServiceError(
                ErrorCode.PAYLOAD_TOO_LARGE,
                f"The request is over {max_bytes} bytes; send fewer or shorter texts.",
            )
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if raw.strip() and media_type == "application/json":
            try:
                data = json.loads(raw)
            except ValueError as exc:
                raise bad_request(f"The body is not valid JSON: {exc}.") from None
            if not isinstance(data, dict):
                raise bad_request("The JSON body must be an object of the request's parameters.")
            values.update(data)
        elif raw.strip():
            try:
                pairs = parse_qsl(raw.decode(), keep_blank_values=True)
            except UnicodeDecodeError:
                raise bad_request("The form body is not UTF-8.") from None
            _merge_pairs(values, pairs)
        return cls(values)

    def has(self, name: str) -> bool:
        return self.values.get(name) not in (None, "")

    def text(self, name: str, default: str | None = None) -> str:
        """A one-value field, stripped; ``default`` when absent or empty, else a 400."""
        value = self.values.get(name)
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, str) or not value.strip():
            if default is not None:
                return default
            if value is None or value == "":
                raise bad_request(f"Parameter '{name}' not specified.")
            raise bad_request(f"Parameter '{name}' must be a string.")
        return value.strip()

    def optional(self, name: str) -> str | None:
        return self.text(name) if self.has(name) else None

    def texts(self, name: str) -> tuple[list[str], bool]:
        """The texts of ``name``, and whether it was a list (the answer is then one too)."""
        value = self.values.get(name)
        if isinstance(value, str) and value.strip():
            return [value], False
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return list(value), True  # blank ones among them are answered as written
        raise bad_request(f"Parameter '{name}' not specified (a text, or a list of texts).")

    def flag(self, name: str) -> bool | None:
        """A boolean field (``true``, ``1``, ``0``…); ``None`` when absent."""
        value = self.values.get(name)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int | str) and str(value).strip().lower() in _TRUE | _FALSE:
            return str(value).strip().lower() in _TRUE
        raise bad_request(f"Parameter '{name}' must be true or false.")

    def names(self, name: str) -> list[str]:
        """A list field, given as a list or comma-separated (DeepL's tag lists)."""
        value = self.values.get(name)
        items = value if isinstance(value, list) else [value] if value is not None else []
        if not all(isinstance(item, str) for item in items):
            raise bad_request(f"Parameter '{name}' must be a list of names.")
        return [part.strip() for item in items for part in item.split(",") if part.strip()]


def _merge_pairs(values: dict[str, Any], pairs: list[tuple[str, str]]) -> None:
    for name, value in pairs:
        if name in values:
            previous = values[name]
            values[name] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            values[name] = value
