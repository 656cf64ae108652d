"""What a summarize request asks for, validated before it queues for the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import MessageBody, SummaryFormat
from threadwise.superpowers.summarize.cast import Cast, cast_speakers
from threadwise.superpowers.summarize.requested_aspects import canonical_aspects
from threadwise.text.languages import LanguageIdentifier, summary_language
from threadwise.text.transcript import Transcript, build_transcript


@dataclass(frozen=True)
class SummaryOptions:
    """The pipeline's optional steps, switchable so that each can be measured."""

    notes: bool = False  # notes (issue, actions, outcome) before the summary
    cast: bool = True  # distinct names for the speakers in the prompt
    checks: bool = True  # each sentence's actors, names and numbers checked


@dataclass(frozen=True)
class SummaryJob:
    """A validated request, ready for the engine."""

    transcript: Transcript  # speakers called by their prompt names
    cast: Cast
    language: str  # BCP 47 tag of the output, as the caller wrote it
    language_code: str  # its primary language, a key of SUMMARY_LANGUAGES
    language_name: str
    form: SummaryFormat
    max_chars: int | None
    # With aspects, each is written instead of the summary (see ``aspects``).
    aspects: tuple[str, ...] = ()
    custom: tuple[CustomAspect, ...] = ()
    # Every sentence corroborated by a second draft (``corroboration``).
    verified: bool = False

    @property
    def sentences(self) -> int:
        """How many sentences a paragraph keeps: the model is asked for two and often writes
        five, and each sentence past the main ones adds a chance of a wrong detail (measured:
        bench/FAITHFULNESS.md). A support chat keeps a third, for the outcome."""
        return 3 if self.transcript.has_roles else 2


def plan(
    body: MessageBody,
    identifier: LanguageIdentifier,
    *,
    cast: bool = True,
    custom: Sequence[CustomAspect] = (),
) -> SummaryJob:
    """Validate what the request asks for; cheap, so it runs before the request queues.
    ``custom`` are the aspects the caller's organization defined."""
    request = body.request
    aspects = canonical_aspects(
        request.settings.summaryAspects or (), custom, "request.settings.summaryAspects"
    )
    transcript = build_transcript(request.scope.conversations)
    if request.settings.overrideOutputLanguage:
        tag = summary_language(
            request.settings.overrideOutputLanguage, "request.settings.overrideOutputLanguage"
        )
    elif body.session.channel.language:
        tag = summary_language(body.session.channel.language, "session.channel.language")
    else:
        # Neither says: write in the conversation's own language.
        code = identifier.detect(transcript.evidence[:4000]) or "en"
        tag = summary_language(code, "the conversation's language")
    names = cast_speakers(transcript) if cast else _own_names(transcript)
    return SummaryJob(
        transcript=transcript.renamed(names.names),
        cast=names,
        language=tag.tag,
        language_code=tag.language,
        language_name=tag.english_name,
        form=request.settings.summaryFormat or "paragraph",
        max_chars=request.settings.maxResponseLength or None,
        aspects=aspects,
        custom=tuple(c for c in custom if c.name in aspects),
        verified=request.settings.summaryMode == "verified",
    )


def _own_names(transcript: Transcript) -> Cast:
    """No cast: every speaker called by their own name (measured against the cast)."""
    return Cast({s: s.name for s in transcript.speakers}, {})
