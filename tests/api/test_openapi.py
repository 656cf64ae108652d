"""/openapi.json is a valid OpenAPI 3.1 document that resolves, and documents the errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate

from tests.conftest import model_free_settings
from threadwise.api.app import create_app
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.services import build_services

# JSON Schema 2020-12's keywords, and those OpenAPI 3.1 adds: anything else (pydantic's `ge`,
# say) is a constraint no client or validator will read.
KEYWORDS = frozenset(
    {
        "$ref", "$defs", "$schema", "$id", "$anchor", "$comment", "$dynamicRef",
        "type", "enum", "const", "title", "description", "default", "examples", "deprecated",
        "readOnly", "writeOnly", "format", "contentMediaType", "contentEncoding",
        "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
        "unevaluatedProperties", "minProperties", "maxProperties", "dependentRequired",
        "dependentSchemas", "items", "prefixItems", "contains", "minItems", "maxItems",
        "uniqueItems", "minContains", "maxContains", "unevaluatedItems",
        "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "discriminator", "xml", "externalDocs", "example",
    }
)  # fmt: skip
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_VALUES = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    services = build_services(model_free_settings(tmp_path_factory.mktemp("openapi")))
    try:
        with TestClient(create_app(services.serving_context())) as http:
            response = http.get("/openapi.json")
            assert response.status_code == 200
            yield response.json()
    finally:
        services.close()


def schemas_in(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema of the document, and where it is."""

    def walk(where: str, schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        yield where, schema
        for key in SCHEMA_MAPS:
            for name, child in schema.get(key, {}).items():
                yield from walk(f"{where}/{key}/{name}", child)
        for key in SCHEMA_LISTS:
            for i, child in enumerate(schema.get(key, [])):
                yield from walk(f"{where}/{key}/{i}", child)
        for key in SCHEMA_VALUES:
            if isinstance(schema.get(key), dict):
                yield from walk(f"{where}/{key}", schema[key])

    for name, schema in document["components"]["schemas"].items():
        yield from walk(f"components/schemas/{name}", schema)
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                yield from walk(f"{where} {parameter['name']}", parameter["schema"])
            bodies = [("body", operation.get("requestBody", {}))]
            bodies += list(operation.get("responses", {}).items())
            for status, body in bodies:
                for media, content in body.get("content", {}).items():
                    yield from walk(f"{where} {status} {media}", content["schema"])


def operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    found: dict[str, Any] = document["paths"][path][method]
    return found


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    def references(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                yield node["$ref"]
            for value in node.values():
                yield from references(value)
        elif isinstance(node, list):
            for value in node:
                yield from references(value)

    found = list(references(document))
    assert "#/components/schemas/Request" in found  # the request body's, among them
    for reference in found:
        assert reference.startswith("#/components/schemas/"), reference
        assert reference.rsplit("/", 1)[1] in document["components"]["schemas"], reference


def test_schemas_use_only_json_schema_keywords(document: dict[str, Any]) -> None:
    unknown = [
        (where, sorted(set(schema) - KEYWORDS))
        for where, schema in schemas_in(document)
        if set(schema) - KEYWORDS
    ]
    assert unknown == []
    settings = document["components"]["schemas"]["RequestSettings"]["properties"]
    assert {"minimum": 0, "type": "integer"} in settings["maxResponseLength"]["anyOf"]


@pytest.mark.parametrize("path", ["/message/summarize", "/message/translate"])
def test_superpowers_document_every_error_they_answer(document: dict[str, Any], path: str) -> None:
    responses = operation(document, "post", path)["responses"]
    statuses = {"200", "400", "401", "403", "413", "415", "422", "429", "500", "503", "504"}
    assert set(responses) == statuses
    for status in statuses - {"200"}:
        schema = responses[status]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}
    assert "PAYLOAD_SCHEMA_MISMATCH" in responses["422"]["description"]
    assert "Retry-After" in responses["429"]["headers"]
    envelope = document["components"]["schemas"]["ErrorEnvelope"]
    assert set(envelope["required"]) >= {"state", "error", "message", "actionType"}


def test_other_endpoints_document_their_errors(document: dict[str, Any]) -> None:
    assert "401" in operation(document, "get", "/languages")["responses"]
    assert "401" in operation(document, "get", "/metrics")["responses"]
    assert "text/plain" in operation(document, "get", "/metrics")["responses"]["200"]["content"]
    assert "503" in operation(document, "get", "/readyz")["responses"]


def test_the_token_endpoint_documents_its_oauth_errors(document: dict[str, Any]) -> None:
    token = operation(document, "post", "/auth/oauth2/token")
    assert {"200", "400", "401", "413", "429"} <= set(token["responses"])
    bad_request = token["responses"]["400"]
    # A parameter in both the query string and the form body: a 400 the document describes.
    assert "query string and in the form body" in bad_request["description"]
    schema = bad_request["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/OAuthErrorBody"}


@pytest.mark.parametrize(
    ("path", "names"),
    [
        (
            "/message/summarize",
            {"summarize-request", "summarize-aspects-request", "summarize-redacted-request"},
        ),
        ("/message/translate", {"translate-request", "translate-formality-request"}),
    ],
)
def test_the_examples_bodies_are_shown_and_valid(
    document: dict[str, Any], path: str, names: set[str]
) -> None:
    content = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    assert set(content["examples"]) == names
    for example in content["examples"].values():
        parse_message_body(example["value"], PayloadLimits())
