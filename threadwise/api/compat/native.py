"""A compatible API's translation as the native request it stands for, run through the one
admission and pipeline of ``POST /message/translate``.

Such a request names no organization: it acts for the caller's first (by id), so a key meant
for one of these APIs belongs to a client of one organization.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import Request

from threadwise.api.records import record_of
from threadwise.api.work import run_operation
from threadwise.auth.gate import Principal
from threadwise.payload import parse_message_body
from threadwise.protocol import MessageBody, ResponseItem
from threadwise.serving.context import ServingContext

TextFormat = Literal["markdown", "html", "xml", "plain"]


@dataclass(frozen=True)
class Translation:
    """What a compatible API asks of the native one, beside the texts and the target."""

    api: str  # names the thread and session ("deepl-…"), for the logs
    mode: Literal["fast", "quality"] = "fast"
    source: str | None = None  # None: detected per text
    text_format: TextFormat = "markdown"
    formality: str | None = None  # "formal", "informal" or None
    glossary_id: str | None = None
    context: str | None = None  # helps the model, not translated, not charged


def acting_organization(caller: Principal) -> str:
    """The organization a compatible API's request acts for: the caller's first."""
    return sorted(caller.claims.organizations)[0]


def native_body(
    texts: list[str], target: str, caller: Principal, asked: Translation
) -> dict[str, Any]:
    """The native translate request: the texts as one conversation's messages."""
    settings: dict[str, Any] = {"targetLanguages": [target], "translationMode": asked.mode}
    if asked.source is not None:
        settings["sourceLanguage"] = asked.source
    if asked.text_format != "markdown":
        settings["textFormat"] = asked.text_format
    if asked.formality is not None:
        settings["formality"] = asked.formality
    if asked.glossary_id is not None:
        settings["glossaryId"] = asked.glossary_id
    if asked.context is not None:
        settings["translationContext"] = asked.context
    name = f"{asked.api}-{uuid.uuid4().hex[:12]}"
    return {
        "session": {"sessionId": name},
        "request": {
            "connections": {"threadId": name},
            "context": {"organizationId": acting_organization(caller)},
            "settings": settings,
            "scope": {
                "conversations": [
                    {
                        "conversationId": asked.api,
                        "participants": [{"participantId": "p", "role": "EndUser"}],
                        "messages": [{"participantId": "p", "content": text} for text in texts],
                    }
                ]
            },
        },
    }


async def translate(
    request: Request,
    token: str | None,
    texts: list[str],
    target: str,
    asked: Translation,
) -> list[ResponseItem]:
    """Each text translated into ``target``, in order (admission's errors raised as they are).
    A blank text is its own translation: these APIs take one, where a native message has
    words."""
    serving: ServingContext = request.app.state.serving
    worded = [text for text in texts if text.strip()]
    if not worded:
        await serving.gate.authenticate(token, request.headers.get("host"))
        return [_as_written(text) for text in texts]

    async def read_body(caller: Principal) -> MessageBody:
        body = native_body(worded, target, caller, asked)
        return parse_message_body(body, serving.admission.limits)

    admitted = await serving.admission.admit(
        "translate", token, request.headers.get("host"), read_body, record_of(request)
    )
    results = await run_operation(request, admitted)
    translated = iter(results[0] if results else [])
    return [next(translated) if text.strip() else _as_written(text) for text in texts]


def _as_written(text: str) -> ResponseItem:
    return ResponseItem(content=text, type="translation")
