"""A translate request as work: its messages, target languages, tier and wording, validated
before any engine runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, Formality, MessageBody, TextFormat
from threadwise.superpowers.translate.routing import Tier
from threadwise.text.languages import (
    IDENTIFIED_LANGUAGES,
    LanguageTag,
    translation_language,
)
from threadwise.text.terms import Glossary, Term


@dataclass(frozen=True)
class SourceMessage:
    conversation_id: str | None
    participant_id: str | None
    timestamp: str | None
    content: str
    conversation: int  # index of its conversation in the request


@dataclass(frozen=True)
class Wording:
    """What a group's translation must say, and how: each term's given translation
    (``text.terms``), and the register it addresses the reader in (``text.formality``)."""

    terms: tuple[Term, ...] = ()
    formality: Formality = "default"
    # Terms the model is told in its prompt (and checked for after), rather than replaced.
    told: tuple[Term, ...] = ()
    # The caller's words about the messages, for the model alone (never translated).
    context: str | None = None


# No terms, and whatever register the engine writes in.
PLAIN = Wording()


@dataclass(frozen=True)
class TranslationJob:
    messages: tuple[SourceMessage, ...]
    targets: tuple[LanguageTag, ...]
    tier: Tier
    # The channel's language, when it is not the target: what a message is likely written in.
    hint: str | None = None
    # The glossary the request names, and the organization's default glossaries (one per
    # language pair at most); its terms that are never translated.
    glossary: Glossary | None = None
    defaults: tuple[Glossary, ...] = ()
    keep: tuple[Term, ...] = ()
    formality: Formality = "default"
    text_format: TextFormat = "markdown"
    # The language the request says every message is in (None: each one's is detected).
    source: str | None = None
    context: str | None = None
    # The organization's policy allows experimental directions (routing's labels).
    experimental: bool = False

    def wording(self, source: str, target: str) -> Wording:
        """The terms, the register and the context of a translation from ``source`` into
        ``target``."""
        return Wording(self.terms(source, target), self.formality, context=self.context)

    def terms(self, source: str, target: str) -> tuple[Term, ...]:
        """What a message of ``source`` translated into ``target`` must say for its terms:
        the glossary of that pair (the one asked for, else the default), then the terms kept
        as written."""
        pair = (source, target)
        glossaries = [self.glossary] if self.glossary else []
        chosen = next(
            (
                g
                for g in (*glossaries, *self.defaults)
                if (g.source_language, g.target_language) == pair
            ),
            None,
        )
        return (*(chosen.entries if chosen else ()), *self.keep)


def plan(
    body: MessageBody,
    glossaries: Sequence[Glossary] = (),
    keep: Sequence[Term] = (),
    experimental: bool = False,
) -> TranslationJob:
    """Validate what the request asks for; cheap, so it runs before any engine.
    ``glossaries`` and ``keep``: the organization's (``text.terms``); ``experimental``: its
    policy allows experimental languages."""
    settings = body.request.settings
    channel = body.session.channel.language
    hint = _language_of(channel) if channel else None
    if settings.targetLanguages:
        targets = tuple(
            translation_language(tag, f"request.settings.targetLanguages[{i}]", experimental)
            for i, tag in enumerate(settings.targetLanguages)
        )
        _check_distinct(targets)
    elif settings.overrideOutputLanguage:
        field = "request.settings.overrideOutputLanguage"
        targets = (translation_language(settings.overrideOutputLanguage, field, experimental),)
    elif channel:
        targets = (translation_language(channel, "session.channel.language", experimental),)
        hint = None
    else:
        raise ServiceError(
            ErrorCode.MISSING_TARGET_LANGUAGE,
            "No target language: set session.channel.language (e.g. 'es-ES'), "
            "request.settings.overrideOutputLanguage, or request.settings.targetLanguages.",
        )
    messages = tuple(
        SourceMessage(
            conversation.conversationId,
            message.participantId,
            message.timestamp_text,
            message.content,
            ci,
        )
        for ci, conversation in enumerate(body.request.scope.conversations)
        for message in conversation.messages
    )
    return TranslationJob(
        messages,
        targets,
        settings.translationMode or "quality",
        hint,
        _chosen_glossary(settings.glossaryId, glossaries, targets),
        tuple(g for g in glossaries if g.default),
        tuple(keep),
        settings.formality or "default",
        settings.textFormat or "markdown",
        _source_language(settings.sourceLanguage, experimental),
        settings.translationContext,
        experimental,
    )


def _source_language(tag: str | None, experimental: bool) -> str | None:
    """The language of ``request.settings.sourceLanguage``: one messages are translated from
    (leave it out to have each message's language detected)."""
    if tag is None:
        return None
    field = "request.settings.sourceLanguage"
    return translation_language(tag, field, experimental, into=False).language


def _language_of(tag: str) -> str | None:
    """The language of a BCP 47 tag, if it is one the identifier knows."""
    language = tag.strip().replace("_", "-").split("-")[0].lower()
    return language if language in IDENTIFIED_LANGUAGES else None


def _chosen_glossary(
    glossary_id: str | None, glossaries: Sequence[Glossary], targets: Sequence[LanguageTag]
) -> Glossary | None:
    """The glossary ``request.settings.glossaryId`` names: the organization's, for a target
    language of the request."""
    if glossary_id is None:
        return None
    chosen = next((g for g in glossaries if g.glossary_id == glossary_id), None)
    if chosen is None:
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"request.settings.glossaryId names {glossary_id[:80]!r}, which is no glossary of "
            "this organization: GET /glossaries?organizationId=… lists them.",
        )
    if chosen.target_language not in {t.language for t in targets}:
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"request.settings.glossaryId names the glossary {chosen.name!r} "
            f"({chosen.source_language}→{chosen.target_language}), but the request translates "
            f"into {', '.join(t.tag for t in targets)}: name a glossary of one of those "
            "languages, or none.",
        )
    return chosen


def _check_distinct(targets: Sequence[LanguageTag]) -> None:
    """Each target language once: a repeated one would be the same work, and answer, again."""
    seen: dict[tuple[str, str | None], int] = {}
    for index, target in enumerate(targets):
        first = seen.setdefault((target.language, target.region), index)
        if first != index:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                f"request.settings.targetLanguages[{index}] is {target.tag!r}, the same language "
                f"as targetLanguages[{first}] ({targets[first].tag!r}); list each target "
                "language once.",
            )
