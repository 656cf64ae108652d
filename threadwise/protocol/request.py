"""The request body of ``POST /message/summarize`` and ``/message/translate``.

Follows the superpowers message API v3 (interface 3.6.0) as `docs/protocol/interface.md` fills
it in: IDs are opaque strings, an empty string counts as absent, unknown keys are ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, PrivateAttr, model_validator

from threadwise.protocol.fields import (
    MAX_TARGETS,
    FrozenModel,
    Id,
    OptionalId,
    OptionalText,
    RedactMode,
    Setting,
    Text,
    Timestamp,
    non_empty_list,
    redact_choice,
    required,
)

SummaryFormat = Literal["paragraph", "bullets", "structured"]
SummaryMode = Literal["fast", "verified"]
# The aspects a summary can be asked for besides its format (docs/guides/aspects.md); an
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
# What a translate request's messages are written in (docs/guides/text-formats.md).
TextFormat = Literal["markdown", "html", "xml", "plain"]


class Channel(FrozenModel):
    language: OptionalText = None


class Interface(FrozenModel):
    type: OptionalText = None


class Session(FrozenModel):
    sessionId: OptionalId = None
    channel: Channel = Channel()
    interface: Interface = Interface()


class Participant(FrozenModel):
    participantId: OptionalId = None
    role: OptionalText = None
    displayName: OptionalText = None


class Message(FrozenModel):
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


class Conversation(FrozenModel):
    conversationId: OptionalId = None
    participants: list[Participant] = []  # noqa: RUF012 (pydantic copies defaults)
    messages: Annotated[list[Message], AfterValidator(non_empty_list)]


class Scope(FrozenModel):
    conversations: Annotated[list[Conversation], AfterValidator(non_empty_list)]


class Connections(FrozenModel):
    threadId: Id


class Context(FrozenModel):
    organizationId: Id


class Attributes(FrozenModel):
    variant: OptionalText = None


class RequestSettings(FrozenModel):
    overrideOutputLanguage: OptionalText = None
    summaryFormat: Setting[SummaryFormat] = None
    maxResponseLength: Setting[Annotated[int, Field(ge=0)]] = None
    disableStream: Setting[bool] = None
    # Extension for summarize: cite the messages behind each sentence (docs/guides/evidence.md).
    includeEvidence: Setting[bool] = None
    # Extensions for translate (docs/protocol/interface.md §5, §6).
    targetLanguages: Setting[
        Annotated[list[Annotated[str, BeforeValidator(required)]], Field(max_length=MAX_TARGETS)]
    ] = None
    translationMode: Setting[TranslationMode] = None
    # Extension for translate: the organization's glossary to apply (docs/guides/glossaries.md);
    # without it, its default glossary for each language pair, if it has one.
    glossaryId: OptionalId = None
    # Extension for translate: the register a translation addresses its reader in, where the
    # target language has two (docs/guides/formality.md).
    formality: Setting[Formality] = Field(
        default=None,
        description="translate: 'formal' or 'informal' address (usted/tú, vous/tu, Sie/du, "
        "o senhor/tu) for targets es, fr, de and pt; 'default' (or absent) leaves it to the "
        "engine. Only the model can be told: the quality tier uses it for such a request, "
        "and a fast-tier engine's result says '(formality not applied)'.",
    )
    # Extensions for translate, as DeepL's tag_handling, source_lang and context and
    # LibreTranslate's format and source (docs/guides/text-formats.md).
    textFormat: Setting[TextFormat] = Field(
        default=None,
        description="translate: what the messages are written in: 'markdown' (the default), "
        "'html', 'xml' or 'plain'. Markup is kept as written and only its text translated; "
        "plain text is translated as it is, nothing escaped.",
    )
    sourceLanguage: OptionalText = Field(
        default=None,
        description="translate: the language every message is written in (a supported "
        "translation language such as 'en'); each message's language is then not detected.",
    )
    translationContext: OptionalText = Field(
        default=None,
        description="translate: text about the messages (who writes, about what) that the "
        "quality tier's model is given and does not translate; machine engines ignore it. "
        "Not charged; at most as long as one message may be.",
    )
    # Extension: personal data replaced by placeholders before any engine, cache or log sees
    # it; "restore" (or true) puts the values back in the answer, "mask" keeps the
    # placeholders (docs/guides/personal-data.md).
    redactPersonalData: Annotated[bool | RedactMode | None, BeforeValidator(redact_choice)] = None
    # Extension for summarize: "verified" has every sentence corroborated by a second draft
    # written another way (about 1.7 times the time, measured), as DeepL offers latency- or
    # quality-optimized models; "fast" (or absent) is the default pipeline.
    summaryMode: Setting[SummaryMode] = Field(
        default=None,
        description="summarize: 'verified' keeps only the sentences a second, independently "
        "written draft agrees with (who did what, about what), for fewer errors at about "
        "1.7 times the time; 'fast' (the default) writes one draft.",
    )
    # Extension for summarize: each named aspect as its own response item
    # (docs/guides/aspects.md); an empty list means the organization's default, else the
    # plain summary.
    summaryAspects: Setting[
        Annotated[list[Annotated[str, BeforeValidator(required)]], Field(max_length=MAX_ASPECTS)]
    ] = Field(
        default=None,
        description="summarize: answer each of these aspects as its own item instead of the "
        f"summary: {', '.join(BUILT_IN_ASPECTS)}, or one the organization defined.",
    )


class Request(FrozenModel):
    requestId: OptionalId = None
    attributes: Attributes = Attributes()
    connections: Connections
    context: Context
    scope: Scope
    settings: RequestSettings = RequestSettings()


class MessageBody(FrozenModel):
    """The body of ``POST /message/summarize`` and ``/message/translate``."""

    session: Session = Session()
    request: Request
