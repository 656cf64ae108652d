"""A job's request in parts: a translation one conversation at a time (its progress, and the
points where it yields to requests), a summary whole (its conversations make one summary);
and the parts' answers put back together as the one request would have had them."""

from __future__ import annotations

from typing import Any

from threadwise.protocol import MessageBody, ResponseItem
from threadwise.serving.operations import Operation, Results


def parts(body: MessageBody, operation: Operation) -> list[MessageBody]:
    """The requests a job makes, in order."""
    conversations = body.request.scope.conversations
    if operation == "summarize" or len(conversations) == 1:
        return [body]
    return [
        body.model_copy(
            update={
                "request": body.request.model_copy(
                    update={"scope": body.request.scope.model_copy(update={"conversations": [c]})}
                )
            }
        )
        for c in conversations
    ]


def part_count(body: MessageBody, operation: Operation) -> int:
    return 1 if operation == "summarize" else len(body.request.scope.conversations)


def joined(answers: list[Results]) -> Results:
    """The parts' answers as one: per result (a translation's target language), every
    part's items in the parts' order."""
    if len(answers) == 1:
        return answers[0]
    width = max(len(answer) for answer in answers)
    return [
        [item for answer in answers if n < len(answer) for item in answer[n]] for n in range(width)
    ]


def storable(body: MessageBody) -> dict[str, Any]:
    """The body as JSON that reads back the same, timestamps as the caller wrote them (a
    translation echoes them)."""
    dumped = body.model_dump(mode="json")
    conversations = body.request.scope.conversations
    for conversation, stored in zip(
        conversations, dumped["request"]["scope"]["conversations"], strict=True
    ):
        for message, kept in zip(conversation.messages, stored["messages"], strict=True):
            if message.timestamp_text is not None:
                kept["timestamp"] = message.timestamp_text
    return dumped


def encoded(results: Results) -> list[list[dict[str, Any]]]:
    return [[i.model_dump(mode="json", exclude_none=True) for i in items] for items in results]


def decoded(stored: list[list[dict[str, Any]]]) -> Results:
    return [[ResponseItem.model_validate(i) for i in items] for items in stored]
