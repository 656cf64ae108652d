"""The response: the items a superpower answers and the envelope around them, on success and
on error."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from threadwise.protocol.codes import ErrorCode
from threadwise.protocol.request import Request


class MessageRef(BaseModel):
    """A message of the request: its conversation, and its index in that conversation's
    ``messages`` (from 0, in request order)."""

    conversationId: str | None = None
    messageIndex: int


class Evidence(BaseModel):
    """One sentence of a summary and the messages that support it."""

    sentence: str
    messages: list[MessageRef]


class NextStep(BaseModel):
    """One next step of a summary's ``nextSteps`` aspect: who will do what."""

    owner: str | None = None  # a participant's display name, or None when no one is named
    text: str  # the step as a sentence, owner included


class SentimentShift(BaseModel):
    """The customer's sentiment at the start of the conversation and at its end."""

    start: Literal["positive", "neutral", "negative"]
    end: Literal["positive", "neutral", "negative"]


class Entity(BaseModel):
    """A thing the conversation names, copied exactly as it was written."""

    kind: Literal["identifier", "amount", "date", "product"]
    text: str


class ResponseItem(BaseModel):
    model_config = ConfigDict(extra="allow")

    content: str
    type: str | None = None
    language: str | None = None
    # translate: where each translated message came from (docs/protocol/interface.md §6).
    conversationId: str | None = None
    participantId: str | None = None
    timestamp: str | None = None
    sourceLanguage: str | None = None
    targetLanguage: str | None = None
    engine: str | None = None
    # summarize with includeEvidence: each sentence of content and its supporting messages.
    evidence: list[Evidence] | None = None
    # summarize with summaryAspects: which aspect this item is, and its parts by kind.
    aspect: str | None = Field(
        default=None, description="summarize with summaryAspects: the aspect this item is."
    )
    label: str | None = Field(
        default=None,
        description="resolutionStatus: resolved, partially, unresolved or unknown.",
    )
    steps: list[NextStep] | None = Field(
        default=None, description="nextSteps: each step and its owner."
    )
    sentiment: SentimentShift | None = Field(
        default=None, description="sentiment: the customer's, at the start and at the end."
    )
    entities: list[Entity] | None = Field(
        default=None, description="entities: what the conversation names, copied exactly."
    )
    error_code: str | None = None


class Result(BaseModel):
    response: list[ResponseItem]


class ResultMessage(BaseModel):
    results: list[Result]


class ErrorDetail(BaseModel):
    code: str
    message: str
    retryable: bool
    # Extension: the whole seconds to wait before a retry can succeed (REST also sends it as
    # Retry-After); a WebSocket error frame has no headers to carry it.
    retryAfter: int | None = None


class Envelope(BaseModel):
    """What every superpower call answers, on success (``completed``) and on ``error``."""

    action: Literal["superpower"] = "superpower"
    actionType: str
    state: Literal["started", "completed", "error"]
    message: ResultMessage
    error: ErrorDetail | None = None
    requestId: str | None = None
    variant: str | None = None

    def to_wire(self) -> dict[str, Any]:
        # A success frame must not carry an `error` key at all: the SDK treats any
        # top-level `error` as a failure.
        return self.model_dump(mode="json", exclude_none=True)


class ErrorEnvelope(Envelope):
    """What every failure answers (``state: "error"`` and ``error`` always there); over REST
    with its code's HTTP status."""

    state: Literal["error"]
    error: ErrorDetail


def completed_envelope(
    action_type: str,
    items: list[ResponseItem],
    request: Request | None = None,
    state: Literal["started", "completed"] = "completed",
) -> Envelope:
    """A success with one result (summarize); ``started`` for a partial one while streaming."""
    return results_envelope(action_type, [items], request, state)


def results_envelope(
    action_type: str,
    results: list[list[ResponseItem]],
    request: Request | None = None,
    state: Literal["started", "completed"] = "completed",
) -> Envelope:
    """A success with one result per list of items (translate: one per target language)."""
    return Envelope(
        actionType=action_type,
        state=state,
        message=ResultMessage(results=[Result(response=items) for items in results]),
        requestId=request.requestId if request else None,
        variant=_variant(request),
    )


def error_envelope(
    action_type: str,
    code: ErrorCode,
    message: str,
    request: Request | None = None,
    retry_after: float | None = None,
) -> Envelope:
    wait = None if retry_after is None else max(1, math.ceil(retry_after))  # never early
    return Envelope(
        actionType=action_type,
        state="error",
        message=ResultMessage(
            results=[Result(response=[ResponseItem(content=message, error_code=code.value)])]
        ),
        error=ErrorDetail(
            code=code.value, message=message, retryable=code.retryable, retryAfter=wait
        ),
        requestId=request.requestId if request else None,
        variant=_variant(request),
    )


def _variant(request: Request | None) -> str | None:
    # The official client upper-cases the variant; echo it the same way for REST callers.
    if request is None or request.attributes.variant is None:
        return None
    return request.attributes.variant.upper()
