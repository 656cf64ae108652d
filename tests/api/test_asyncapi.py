"""docs/asyncapi.yaml describes what the WebSocket endpoint really reads and writes."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import yaml
from pydantic import BaseModel

from tests.api.sdk_frames import example_params, sdk_frame
from threadwise.api.asyncapi import DOCUMENT, FRAMES, component_schemas
from threadwise.protocol import (
    ErrorCode,
    ResponseItem,
    SocketCancel,
    SocketJob,
    SocketJobReply,
    SocketMessage,
    SocketPlainMessage,
    completed_envelope,
    error_envelope,
    socket_job_reply,
    socket_reply,
)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    return loaded


def valid(document: dict[str, Any], schema: str, instance: Any) -> None:
    """``instance`` against ``#/components/schemas/<schema>``, references resolved in place."""
    root = {"$ref": f"#/components/schemas/{schema}", "components": document["components"]}
    jsonschema.validate(instance, root)


def test_schemas_are_the_servers_models(document: dict[str, Any]) -> None:
    assert document["components"]["schemas"] == component_schemas(), (
        "docs/asyncapi.yaml is out of date: run `.venv/bin/python -m threadwise.api.asyncapi`"
    )
    assert {model.__name__ for model, _ in FRAMES} <= set(document["components"]["schemas"])


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    def references(node: Any) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            return found + [r for value in node.values() for r in references(value)]
        if isinstance(node, list):
            return [r for value in node for r in references(value)]
        return []

    for reference in references(document):
        assert reference.startswith("#/"), reference
        node: Any = document
        for part in reference[2:].split("/"):
            assert part in node, f"{reference} does not resolve"
            node = node[part]


def test_frames_of_the_official_client_match_the_request_schema(
    document: dict[str, Any],
) -> None:
    for action in ("summarize", "translate"):
        frame = json.loads(sdk_frame(action, example_params(translationMode="fast")))
        valid(document, "SocketMessage", frame)
        SocketMessage.model_validate(frame)


def test_examples_are_valid_and_read_by_the_server(document: dict[str, Any]) -> None:
    messages = document["components"]["messages"]
    readers: dict[str, type[BaseModel]] = {
        "request": SocketMessage,
        "plainRequest": SocketPlainMessage,
        "cancel": SocketCancel,
        "job": SocketJob,
        "jobReply": SocketJobReply,
    }
    for name, message in messages.items():
        schema = message["payload"]["$ref"].rsplit("/", 1)[1]
        for example in message.get("examples", []):
            valid(document, schema, example["payload"])
            if name in readers:
                readers[name].model_validate(example["payload"])


def test_replies_the_server_builds_match_the_reply_schema(document: dict[str, Any]) -> None:
    item = ResponseItem(content="Ana's parcel 7781 is late.", type="summary", language="en")
    for envelope in (
        completed_envelope("summarize", [item]),
        completed_envelope("summarize", [item], state="started"),
        error_envelope("translate", ErrorCode.REQUEST_CANCELLED, "The request was cancelled."),
    ):
        reply = socket_reply(envelope, "conv-901", "summarize", "trace-1").to_wire()
        valid(document, "SocketReply", reply)
        assert "payload" not in reply
        assert ("error" in reply) == (envelope.state == "error")


def test_job_replies_the_server_builds_match_the_job_reply_schema(
    document: dict[str, Any],
) -> None:
    job: dict[str, Any] = {
        "jobId": "job_" + "0" * 32,
        "operation": "translate",
        "organizationId": "org-1",
        "requestId": None,
        "status": "completed",
        "createdAt": "2026-03-02T14:05:11.210Z",
        "startedAt": "2026-03-02T14:05:11.300Z",
        "finishedAt": "2026-03-02T14:05:12.000Z",
        "expiresAt": "2026-03-03T14:05:12.000Z",
        "progress": {"done": 1, "total": 1},
        "result": completed_envelope("translate", [ResponseItem(content="Hola")]).to_wire(),
        "webhook": None,
    }
    for state in ("accepted", "completed"):
        reply = socket_job_reply(job, state, "c-42", "translate", None, "key-1")
        valid(document, "SocketJobReply", reply)
        SocketJobReply.model_validate(reply)
        assert reply["job"] is job and reply["headers"]["idempotencyKey"] == "key-1"
        assert "error" not in reply and "payload" not in reply
