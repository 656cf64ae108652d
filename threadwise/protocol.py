"""The contract: request body, response and error envelopes, and the error codes.

Follows the superpowers message API v3 (interface 3.6.0) as `decisions.md` fills it in:
IDs are opaque strings, an empty string counts as absent, unknown keys are ignored.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar, overload

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    model_validator,
)
from pydantic_core import PydanticCustomError

MAX_ID_LENGTH = 256
# Target languages of one translate request (each is the whole work again).
MAX_TARGETS = 10
# What a reply echoes of a caller's correlation and trace IDs (REST headers, WebSocket frames).
MAX_ECHOED_ID_LENGTH = 128


# --- field types ---------------------------------------------------------------------------


def _blank_to_none(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _require(value: Any) -> Any:
    value = _blank_to_none(value)
    if value is None:
        raise PydanticCustomError("missing", "Field required")
    return value


def _parse_timestamp(value: Any) -> Any:
    value = _blank_to_none(value)
    if value is None or isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("timestamp_type", "expected an ISO 8601 string")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise PydanticCustomError(
            "timestamp_format",
            "expected an ISO 8601 timestamp such as 2026-03-02T14:05:11.000Z, got '{value}'",
            {"value": value[:64]},
        ) from None


def _redact_choice(value: Any) -> Any:
    """true, false, "restore" or "mask" exactly (or not set): pydantic's lax bool would read
    "yes", "off" or 0 as a boolean, and a caller who meant something else would get it."""
    value = _blank_to_none(value)
    if value is None or isinstance(value, bool) or value in ("restore", "mask"):
        return value
    raise PydanticCustomError(
        "redact_choice",
        "expected true, false, 'restore' or 'mask', got {value}",
        {"value": repr(value)[:64]},
    )


def _non_empty_list(value: list[Any]) -> list[Any]:
    if not value:
        raise PydanticCustomError("missing", "must be a non-empty list")
    return value


_IdText = Annotated[str, Field(max_length=MAX_ID_LENGTH)]
Id = Annotated[_IdText, BeforeValidator(_require)]
OptionalId = Annotated[_IdText | None, BeforeValidator(_blank_to_none)]
Text = Annotated[str, BeforeValidator(_require)]
OptionalText = Annotated[str | None, BeforeValidator(_blank_to_none)]
Timestamp = Annotated[datetime | None, BeforeValidator(_parse_timestamp)]
T = TypeVar("T")
# An optional setting: null, "" and " " all mean "not set", whatever its type.
Setting = Annotated[T | None, BeforeValidator(_blank_to_none)]
RedactMode = Literal["restore", "mask"]

SummaryFormat = Literal["paragraph", "bullets", "structured"]
SummaryMode = Literal["fast", "verified"]
# The aspects a summary can be asked for besides its format (README, "Summary aspects"); an
# organization may define its own too.
BUILT_IN_ASPECTS: tuple[str, ...] = (
    "issue",
    "resolution",
    "resolutionStatus",
    "nextSteps",
    "sentiment",
    "chapterTitle",
    "narrative",
    "recap",
    "entities",
)
MAX_ASPECTS = 20
TranslationMode = Literal["quality", "fast"]
Formality = Literal["default", "formal", "informal"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# --- request -------------------------------------------------------------------------------


class Channel(_Model):
    language: OptionalText = None


class Interface(_Model):
    type: OptionalText = None


class Session(_Model):
    sessionId: OptionalId = None
    channel: Channel = Channel()
    interface: Interface = Interface()


class Participant(_Model):
    participantId: OptionalId = None
    role: OptionalText = None
    displayName: OptionalText = None


class Message(_Model):
    content: Text
    participantId: OptionalId = None
    timestamp: Timestamp = None
    _timestamp_text: str | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_timestamp_text(cls, data: Any, handler: Any) -> Any:
        message = handler(data)
        raw = data.get("timestamp") if isinstance(data, dict) else None
        if isinstance(raw, str) and raw.strip():
            message._timestamp_text = raw
        return message

    @property
    def timestamp_text(self) -> str | None:
        """The timestamp exactly as the caller wrote it (echoed in translations)."""
        return self._timestamp_text


class Conversation(_Model):
    conversationId: OptionalId = None
    participants: list[Participant] = []
    messages: Annotated[list[Message], AfterValidator(_non_empty_list)]


class Scope(_Model):
    conversations: Annotated[list[Conversation], AfterValidator(_non_empty_list)]


class Connections(_Model):
    threadId: Id


class Context(_Model):
    organizationId: Id


class Attributes(_Model):
    variant: OptionalText = None


class RequestSettings(_Model):
    overrideOutputLanguage: OptionalText = None
    summaryFormat: Setting[SummaryFormat] = None
    maxResponseLength: Setting[Annotated[int, Field(ge=0)]] = None
    disableStream: Setting[bool] = None
    # Extension for summarize: cite the messages behind each sentence (README, "Evidence").
    includeEvidence: Setting[bool] = None
    # Extensions for translate (decisions.md §5, §6).
    targetLanguages: Setting[
        Annotated[list[Annotated[str, BeforeValidator(_require)]], Field(max_length=MAX_TARGETS)]
    ] = None
    translationMode: Setting[TranslationMode] = None
    # Extension for translate: the organization's glossary to apply (README, "Glossaries");
    # without it, its default glossary for each language pair, if it has one.
    glossaryId: OptionalId = None
    # Extension for translate: the register a translation addresses its reader in, where the
    # target language has two (README, "Formality").
    formality: Setting[Formality] = Field(
        default=None,
        description="translate: 'formal' or 'informal' address (usted/tú, vous/tu, Sie/du, "
        "o senhor/tu) for targets es, fr, de and pt; 'default' (or absent) leaves it to the "
        "engine. Only the model can be told: the quality tier uses it for such a request, "
        "and a fast-tier engine's result says '(formality not applied)'.",
    )
    # Extension: personal data replaced by placeholders before any engine, cache or log sees
    # it; "restore" (or true) puts the values back in the answer, "mask" keeps the
    # placeholders (README, "Personal data").
    redactPersonalData: Annotated[bool | RedactMode | None, BeforeValidator(_redact_choice)] = None
    # Extension for summarize: "verified" has every sentence corroborated by a second draft
    # written another way (about 1.7 times the time, measured), as DeepL offers latency- or
    # quality-optimized models; "fast" (or absent) is the default pipeline.
    summaryMode: Setting[SummaryMode] = Field(
        default=None,
        description="summarize: 'verified' keeps only the sentences a second, independently "
        "written draft agrees with (who did what, about what), for fewer errors at about "
        "1.7 times the time; 'fast' (the default) writes one draft.",
    )
    # Extension for summarize: each named aspect as its own response item (README, "Summary
    # aspects"); an empty list means the organization's default, else the plain summary.
    summaryAspects: Setting[
        Annotated[list[Annotated[str, BeforeValidator(_require)]], Field(max_length=MAX_ASPECTS)]
    ] = Field(
        default=None,
        description="summarize: answer each of these aspects as its own item instead of the "
        f"summary: {', '.join(BUILT_IN_ASPECTS)}, or one the organization defined.",
    )


class Request(_Model):
    requestId: OptionalId = None
    attributes: Attributes = Attributes()
    connections: Connections
    context: Context
    scope: Scope
    settings: RequestSettings = RequestSettings()


class MessageBody(_Model):
    """The body of ``POST /message/summarize`` and ``/message/translate``."""

    session: Session = Session()
    request: Request


# --- WebSocket frames in (wire-protocol.md §3; decisions.md §9) ------------------------------


class SocketRequestHeaders(BaseModel):
    """The headers of a request frame. The official client sends all of these but
    ``timestamp``, ``tenantId`` and ``networkLatencyMs``; only ``correlationId`` and ``action``
    are read (``traceId`` and ``idempotencyKey`` are echoed). IDs are opaque strings."""

    model_config = ConfigDict(extra="allow", frozen=True)

    correlationId: str | None = None
    action: str | None = None
    schemaRef: str | None = None
    sdkVersion: str | None = None
    identifier: str | None = None
    traceId: str | None = None
    idempotencyKey: str | None = None
    timestamp: str | None = None
    issuedAt: str | None = None
    tenantId: str | None = None
    networkLatencyMs: float | str | None = None


class SocketMessage(BaseModel):
    """A request as the official client frames it: the superpower in ``headers.action``, the
    body in ``payload`` (which may also carry a copy of the caller's ``headers``)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    action: Literal["message"]
    headers: SocketRequestHeaders
    payload: MessageBody


class SocketPlainMessage(MessageBody):
    """A request without the SDK's envelope: the body itself, naming its superpower in
    ``headers.action`` or ``actionType``, its correlation id in ``headers.correlationId`` or
    ``correlationId`` (else ``request.requestId``)."""

    headers: SocketRequestHeaders = SocketRequestHeaders()
    actionType: str | None = None
    correlationId: str | None = None


class SocketCancelHeaders(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    correlationId: Annotated[str, Field(min_length=1, max_length=MAX_ECHOED_ID_LENGTH)]


class SocketCancel(BaseModel):
    """Stop the requests in flight on this socket with this correlation id (an extension)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    action: Literal["cancel"]
    headers: SocketCancelHeaders


# --- response ------------------------------------------------------------------------------


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
    # translate: where each translated message came from (decisions.md §6).
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


class SocketReplyHeaders(BaseModel):
    correlationId: str | None = None
    action: str
    schemaRef: Literal["optave.response.v3", "optave.error.v3"]
    identifier: Literal["message"] = "message"
    issuedAt: str
    traceId: str | None = None
    idempotencyKey: str | None = None


class SocketReply(Envelope):
    """A WebSocket reply: the flat envelope, with the request's correlation id (echoed as sent)
    in ``headers`` and at the top level, where the official client looks for it. Never a
    ``payload`` key: the client does not look inside one."""

    headers: SocketReplyHeaders
    # Absent only when the frame answered had none that could be read (not JSON, say).
    correlationId: str | None = None


class ErrorCode(StrEnum):
    INVALID_JSON = "INVALID_JSON"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    REQUIRED_FIELDS_MISSING = "REQUIRED_FIELDS_MISSING"
    PAYLOAD_SCHEMA_MISMATCH = "PAYLOAD_SCHEMA_MISMATCH"
    MISSING_TARGET_LANGUAGE = "MISSING_TARGET_LANGUAGE"
    UNSUPPORTED_LANGUAGE = "UNSUPPORTED_LANGUAGE"
    UNKNOWN_ACTION = "UNKNOWN_ACTION"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    MISSING_TOKEN = "MISSING_TOKEN"
    INVALID_TOKEN = "INVALID_TOKEN"
    TOKEN_EXPIRED = "TOKEN_EXPIRED"
    FORBIDDEN_ORGANIZATION = "FORBIDDEN_ORGANIZATION"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    RATE_LIMITED = "RATE_LIMITED"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    OVERLOADED = "OVERLOADED"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    REQUEST_CANCELLED = "REQUEST_CANCELLED"
    PROCESSING_FAILED = "PROCESSING_FAILED"

    @property
    def http_status(self) -> int:
        return _HTTP_STATUS[self]

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE


_HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INVALID_JSON: 400,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.REQUIRED_FIELDS_MISSING: 422,
    ErrorCode.PAYLOAD_SCHEMA_MISMATCH: 422,
    ErrorCode.MISSING_TARGET_LANGUAGE: 422,
    ErrorCode.UNSUPPORTED_LANGUAGE: 422,
    ErrorCode.UNKNOWN_ACTION: 404,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.MISSING_TOKEN: 401,
    ErrorCode.INVALID_TOKEN: 401,
    ErrorCode.TOKEN_EXPIRED: 401,
    ErrorCode.FORBIDDEN_ORGANIZATION: 403,
    ErrorCode.IDEMPOTENCY_KEY_REUSED: 422,
    ErrorCode.RATE_LIMITED: 429,
    # Not retryable: the organization's monthly characters are used up until the month ends.
    ErrorCode.QUOTA_EXCEEDED: 429,
    ErrorCode.OVERLOADED: 503,
    ErrorCode.REQUEST_TIMEOUT: 504,
    # Only ever a WebSocket frame; 499 is what proxies log for a client that gave up.
    ErrorCode.REQUEST_CANCELLED: 499,
    ErrorCode.PROCESSING_FAILED: 500,
}

_RETRYABLE = frozenset(
    {
        ErrorCode.RATE_LIMITED,
        ErrorCode.OVERLOADED,
        ErrorCode.REQUEST_TIMEOUT,
        ErrorCode.PROCESSING_FAILED,
        ErrorCode.TOKEN_EXPIRED,
    }
)


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
    action_type: str, code: ErrorCode, message: str, request: Request | None = None
) -> Envelope:
    return Envelope(
        actionType=action_type,
        state="error",
        message=ResultMessage(
            results=[Result(response=[ResponseItem(content=message, error_code=code.value)])]
        ),
        error=ErrorDetail(code=code.value, message=message, retryable=code.retryable),
        requestId=request.requestId if request else None,
        variant=_variant(request),
    )


def socket_reply(
    envelope: Envelope,
    correlation_id: str | None,
    action: str,
    trace_id: str | None = None,
    idempotency_key: str | None = None,
) -> SocketReply:
    """``envelope`` as a WebSocket reply to the request with ``correlation_id``."""
    issued_at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    correlation_id = echoed_id(correlation_id)
    headers = SocketReplyHeaders(
        correlationId=correlation_id,
        action=action,
        schemaRef="optave.error.v3" if envelope.state == "error" else "optave.response.v3",
        issuedAt=issued_at,
        traceId=echoed_id(trace_id),
        # Keys of up to MAX_ID_LENGTH characters are valid: echoed whole.
        idempotencyKey=echoed_id(idempotency_key, MAX_ID_LENGTH),
    )
    fields = {name: getattr(envelope, name) for name in Envelope.model_fields}
    return SocketReply(**fields, headers=headers, correlationId=correlation_id)


@overload
def echoed_id(value: str, limit: int = MAX_ECHOED_ID_LENGTH) -> str: ...
@overload
def echoed_id(value: None, limit: int = MAX_ECHOED_ID_LENGTH) -> None: ...
@overload
def echoed_id(value: str | None, limit: int = MAX_ECHOED_ID_LENGTH) -> str | None: ...
def echoed_id(value: str | None, limit: int = MAX_ECHOED_ID_LENGTH) -> str | None:
    """A caller's ID as replies and logs echo it: at most ``limit`` characters, so that no
    reply grows with what the caller sent."""
    return None if value is None else value[:limit]


def _variant(request: Request | None) -> str | None:
    # The official client upper-cases the variant; echo it the same way for REST callers.
    if request is None or request.attributes.variant is None:
        return None
    return request.attributes.variant.upper()
