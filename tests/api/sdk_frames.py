"""Frames byte for byte as the official JavaScript client (3.2.3) builds them, from
``docs/protocol/client.md`` §3 (``buildMessageEnvelope``, main.js:1039-1072; the default payload,
main.js:65-183): the caller's params deep-merged over the default skeleton (arrays replaced,
``attributes.variant`` upper-cased), wrapped with the SDK's headers in its order, serialized as
``JSON.stringify`` does."""

from __future__ import annotations

import copy
import json
import os
import time
import uuid
from datetime import UTC, datetime
from typing import Any

SDK_VERSION = "3.2.3"

DEFAULT_PAYLOAD: dict[str, Any] = {
    "session": {
        "sessionId": "",
        "channel": {
            "browser": "",
            "deviceInfo": "",
            "deviceType": "",
            "language": "",
            "location": "",
            "medium": "chat",
            "metadata": [],
            "section": "",
        },
        "interface": {"appVersion": "", "category": "", "language": "", "name": "", "type": ""},
    },
    "request": {
        "requestId": "",
        "attributes": {"content": "", "instruction": "", "variant": "A"},
        "connections": {"journeyId": "", "parentId": "", "threadId": ""},
        "context": {
            "caseId": "",
            "departmentId": "",
            "operatorId": "",
            "organizationId": "",
            "userId": "",
        },
        "reference": {"ids": [{"name": "", "value": ""}], "labels": [], "tags": []},
        "resources": {
            "codes": [{"id": "", "label": "", "type": "", "value": ""}],
            "links": [
                {"expires_at": "", "html": False, "id": "", "label": "", "type": "", "url": ""}
            ],
            "offers": [],
        },
        "scope": {
            "accounts": [],
            "appointments": [],
            "assets": [],
            "bookings": [],
            "cases": [],
            "conversations": [],
            "documents": [],
            "events": [],
            "interactions": [],
            "items": [],
            "locations": [],
            "operators": [],
            "orders": [],
            "organizations": [],
            "persons": [],
            "policies": [],
            "products": [{"id": ""}],
            "properties": [],
            "services": [],
            "subscriptions": [],
            "tickets": [],
            "transactions": [],
            "users": [],
        },
        "settings": {
            "disableBrowsing": False,
            "disableSearch": False,
            "disableSources": False,
            "disableStream": True,
            "disableTools": False,
            "maxResponseLength": 0,
            "overrideInterfaceLanguage": "",
            "overrideOutputLanguage": "",
        },
        "a2a": [{"id": "", "name": "", "type": ""}],
        "cursor": {"since": "", "until": ""},
    },
}


def uuid7() -> str:
    """A UUID version 7, as the SDK's ``uuid`` package makes them."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    value = (value & ~(0xF << 76)) | (0x7 << 76)
    value = (value & ~(0x3 << 62)) | (0x2 << 62)
    return str(uuid.UUID(int=value))


def merged(base: Any, params: Any) -> Any:
    """The SDK's selective deep merge: objects merged key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(params, dict):
        result = dict(base)
        for key, value in params.items():
            result[key] = merged(base[key], value) if key in base else copy.deepcopy(value)
        return result
    return copy.deepcopy(params)


def sdk_frame(action: str, params: dict[str, Any], tenant_id: str | None = None) -> str:
    """The text frame ``sdk.<action>(params)`` sends."""
    payload = merged(DEFAULT_PAYLOAD, params)
    attributes = payload["request"]["attributes"]
    if isinstance(attributes.get("variant"), str):
        attributes["variant"] = attributes["variant"].upper()
    caller = params.get("headers", {})
    headers: dict[str, Any] = {
        "correlationId": caller.get("correlationId")
        or payload["request"].get("requestId")
        or uuid7(),
        "action": action,
        "schemaRef": "optave.message.v3",
        "sdkVersion": SDK_VERSION,
        "identifier": "message",
        "traceId": caller.get("traceId") or uuid7(),
        "idempotencyKey": caller.get("idempotencyKey") or uuid7(),
    }
    if "timestamp" in caller:
        headers["timestamp"] = caller["timestamp"]
    headers["issuedAt"] = (
        datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )
    if tenant_id is not None:
        headers["tenantId"] = tenant_id
    if isinstance(caller.get("networkLatencyMs"), int | float):
        headers["networkLatencyMs"] = caller["networkLatencyMs"]
    envelope = {"action": "message", "headers": headers, "payload": payload}
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


def example_params(organization: str = "org-1", **settings: Any) -> dict[str, Any]:
    """The params of the SDK's generated server example (ex/summarize.js), headers included
    as the generated examples pass them, and its non-UUID request id."""
    return {
        "headers": {"timestamp": "2024-01-15T10:30:00.000Z", "networkLatencyMs": 120},
        "session": {
            "sessionId": "a1b2c3e6-e5f6-7890-1234-56789abcdef0",
            "channel": {
                "browser": "Safari 17.0",
                "deviceInfo": "iOS/18.2, iPhone15,3",
                "deviceType": "mobile",
                "language": "en-US",
                "location": "40.7128,-74.0060",
                "medium": "chat",
                "section": "support_page",
            },
            "interface": {
                "appVersion": "2.1.0",
                "category": "crm",
                "language": "en-US",
                "name": "my_support_app",
                "type": "custom_components",
            },
        },
        "request": {
            "requestId": "89012345-6789-0123-456789abcdef",
            "attributes": {"variant": "a"},
            "connections": {"threadId": "9e8d3c6b-5a4f-3e2d-1c0b-0987654321ab"},
            "context": {"organizationId": organization},
            "scope": {
                "conversations": [
                    {
                        "conversationId": "conv-678",
                        "participants": [
                            {
                                "participantId": "2c4f8a9b-1d3e-5f70-8293-456789012def",
                                "displayName": "John Doe",
                                "role": "user",
                            },
                            {
                                "participantId": "5b8c9d0e-2f4a-6b1c-9d8e-123456789xyz",
                                "displayName": "Sarah Smith",
                                "role": "operator",
                            },
                        ],
                        "messages": [
                            {
                                "content": "Hi, my order 4471 arrived broken. Can you help me?",
                                "participantId": "2c4f8a9b-1d3e-5f70-8293-456789012def",
                                "timestamp": "2024-01-15T10:30:00.000Z",
                            },
                            {
                                "content": "I'm sorry! I have sent you a replacement today.",
                                "participantId": "5b8c9d0e-2f4a-6b1c-9d8e-123456789xyz",
                                "timestamp": "2024-01-15T10:30:15.000Z",
                            },
                        ],
                    }
                ]
            },
            "settings": settings,
        },
    }
