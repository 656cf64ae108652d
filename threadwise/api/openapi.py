"""The OpenAPI document at ``/openapi.json``: FastAPI's, made to resolve, with every error the
endpoints answer documented."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from threadwise.protocol import ErrorCode, ErrorEnvelope

COMPONENTS = "#/components/schemas/"
# Codes a client never gets from the routes that document their errors with this: other
# paths (404), other methods (405), and a cancel, which only the WebSocket endpoint answers.
_UNDOCUMENTED = frozenset(
    {
        ErrorCode.UNKNOWN_ACTION,
        ErrorCode.NOT_FOUND,
        ErrorCode.METHOD_NOT_ALLOWED,
        ErrorCode.REQUEST_CANCELLED,
    }
)
_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string"}}},
    429: {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}},
    503: {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}},
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error envelope at each status, described by the codes that answer with it."""
    responses: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        codes = [c for c in ErrorCode if c.http_status == status and c not in _UNDOCUMENTED]
        responses[status] = {
            "model": ErrorEnvelope,
            "description": ", ".join(
                f"`{c.value}`" + (" (retryable)" if c.retryable else "") for c in codes
            ),
            **({"headers": _HEADERS[status]} if status in _HEADERS else {}),
        }
    return responses


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """A route's ``openapi_extra`` for a JSON body it reads itself (``deps.json_body``) as
    ``model``, which the document names among its components."""
    schema = model.model_json_schema()
    definitions = {**schema.pop("$defs", {}), model.__name__: schema}
    content = {"schema": {"$ref": f"#/$defs/{model.__name__}", "$defs": definitions}}
    return {"requestBody": {"required": True, "content": {"application/json": content}}}


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """``app``'s document, made once; the schemas of models given as a route's
    ``openapi_extra`` (the request body) moved from their own ``$defs`` into the components,
    where their references can resolve."""
    if app.openapi_schema is None:
        document = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            routes=app.routes,
        )
        hoisted: dict[str, Any] = {}
        document = _hoist_definitions(document, hoisted)
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        for name, schema in hoisted.items():
            _add_schema(schemas, name, schema)
        app.openapi_schema = document
    return app.openapi_schema


def _add_schema(schemas: dict[str, Any], name: str, schema: Any) -> None:
    if schemas.setdefault(name, schema) != schema:
        raise ValueError(f"two different schemas are both named {name!r}")


def _hoist_definitions(node: Any, schemas: dict[str, Any]) -> Any:
    """``node`` without ``$defs``, each moved into ``schemas``, and references to them
    rewritten to point there."""
    if isinstance(node, list):
        return [_hoist_definitions(item, schemas) for item in node]
    if not isinstance(node, dict):
        return node
    for name, schema in node.get("$defs", {}).items():
        _add_schema(schemas, name, _hoist_definitions(schema, schemas))
    result = {}
    for key, value in node.items():
        if key == "$defs":
            continue
        if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
            value = COMPONENTS + value.removeprefix("#/$defs/")
        result[key] = _hoist_definitions(value, schemas)
    return result
