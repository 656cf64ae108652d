"""Request bodies for ``/message/summarize`` and ``/message/translate`` from the client's
typed arguments."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from threadwise.client.models import Conversation, Message

ConversationLike = Conversation | Mapping[str, Any]
# Texts (one, or a list) make one conversation; else one conversation or a list of them.
TextsOrConversations = str | Sequence[str] | ConversationLike | Sequence[ConversationLike]


def conversations_wire(
    conversations: Sequence[ConversationLike] | ConversationLike,
) -> list[dict[str, Any]]:
    """Typed conversations as the wire writes them; a mapping is taken in the wire's own
    form (``messages`` of ``{"content": …}``, or plain strings)."""
    if isinstance(conversations, Conversation | Mapping):
        conversations = [conversations]
    wire = []
    for conversation in conversations:
        if isinstance(conversation, Conversation):
            wire.append(conversation.to_wire())
        elif isinstance(conversation, Mapping) and "messages" in conversation:
            messages = [
                Message(m).to_wire() if isinstance(m, str) else dict(m)
                for m in conversation["messages"]
            ]
            wire.append({**conversation, "messages": messages})
        else:
            raise TypeError(
                "a conversation is a threadwise.client.Conversation or a mapping with "
                f"'messages', got {conversation!r}"[:300]
            )
    if not wire:
        raise ValueError("give at least one conversation")
    return wire


def texts_or_conversations(
    given: TextsOrConversations,
) -> list[dict[str, Any]]:
    """Texts (one string, or a list of them) as one conversation of one message each, or
    conversations as they are."""
    if isinstance(given, Conversation | Mapping):  # one conversation (not its keys as texts)
        return conversations_wire(given)
    if isinstance(given, str):
        given = [given]
    if given and all(isinstance(item, str) for item in given):
        return [Conversation([Message(str(text)) for text in given]).to_wire()]
    return conversations_wire(given)  # type: ignore[arg-type]  # no strings left


def message_body(
    conversations: list[dict[str, Any]],
    organization: str,
    settings: Mapping[str, Any],
    thread_id: str | None = None,
) -> dict[str, Any]:
    """The envelope's body; settings left as None are not sent."""
    request: dict[str, Any] = {
        "connections": {"threadId": thread_id or f"thread-{uuid.uuid4()}"},
        "context": {"organizationId": organization},
        "scope": {"conversations": conversations},
    }
    chosen = {key: value for key, value in settings.items() if value is not None}
    if chosen:
        request["settings"] = chosen
    return {"request": request}


def summarize_body(
    conversations: Sequence[ConversationLike] | ConversationLike,
    organization: str,
    thread_id: str | None,
    *,
    language: str | None,
    aspects: Sequence[str] | None,
    format: str | None,
    mode: str | None,
) -> dict[str, Any]:
    """The body of a summary of ``conversations`` with these settings."""
    settings = summarize_settings(language=language, aspects=aspects, format=format, mode=mode)
    return message_body(conversations_wire(conversations), organization, settings, thread_id)


def summarize_settings(
    *,
    language: str | None,
    aspects: Sequence[str] | None,
    format: str | None,
    mode: str | None,
) -> dict[str, Any]:
    return {
        "overrideOutputLanguage": language,
        "summaryAspects": list(aspects) if aspects is not None else None,
        "summaryFormat": format,
        "summaryMode": mode,
    }


def translate_settings(
    *,
    targets: str | Sequence[str],
    mode: str | None,
    glossary: str | None,
    formality: str | None,
) -> dict[str, Any]:
    languages = [targets] if isinstance(targets, str) else list(targets)
    if not languages:
        raise ValueError("give at least one target language, e.g. targets=['es']")
    return {
        "targetLanguages": languages,
        "translationMode": mode,
        "glossaryId": glossary,
        "formality": formality,
    }
