"""Planning a summarize request: its language, form and aspects, validated before it queues."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import minimal_body
from threadwise.errors import ServiceError
from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import ErrorCode, MessageBody
from threadwise.superpowers.summarize.job import plan
from threadwise.text.languages import LanguageIdentifier

TONE = CustomAspect("customerTone", "How the customer sounds.", "Ana: Hi", "Calm.")
UNUSED = CustomAspect("unused", "Not asked for.", "Ana: Hi", "Nothing.")


class FixedIdentifier(LanguageIdentifier):
    """Says every text is in one language."""

    def __init__(self, language: str | None) -> None:
        super().__init__()
        self.language = language

    def detect(self, text: str) -> str | None:
        return self.language


def body(channel: str | None = "en-US", **settings: Any) -> MessageBody:
    data = minimal_body(settings=settings) if settings else minimal_body()
    data["session"]["channel"]["language"] = channel
    return MessageBody.model_validate(data)


def test_the_defaults() -> None:
    job = plan(body(), FixedIdentifier("en"))
    assert (job.language, job.language_code) == ("en-US", "en")
    assert job.language_name == "American English"
    assert job.form == "paragraph" and job.max_chars is None
    assert job.aspects == () and job.custom == () and not job.verified
    assert job.sentences == 3  # a support chat: a third sentence for the outcome


def test_the_override_wins_over_the_channel_and_the_channel_over_the_conversation() -> None:
    identifier = FixedIdentifier("de")
    assert plan(body("es-ES", overrideOutputLanguage="fr"), identifier).language == "fr"
    assert plan(body("es-ES"), identifier).language == "es-ES"
    assert plan(body(None), identifier).language == "de"
    assert plan(body(None), FixedIdentifier(None)).language == "en"


def test_an_unsupported_language_is_refused_before_queueing() -> None:
    with pytest.raises(ServiceError) as raised:
        plan(body("xx"), FixedIdentifier("en"))
    assert raised.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
    assert "session.channel.language" in raised.value.message


def test_only_the_custom_aspects_asked_for_are_kept() -> None:
    asked = body(summaryAspects=["issue", "CUSTOMERTONE"], summaryMode="verified")
    job = plan(asked, FixedIdentifier("en"), custom=[TONE, UNUSED])
    assert job.aspects == ("issue", "customerTone") and job.custom == (TONE,)
    assert job.verified


def test_without_a_cast_speakers_keep_their_own_names() -> None:
    job = plan(body(), FixedIdentifier("en"), cast=False)
    assert sorted(job.cast.names.values()) == ["Ana", "Bo"] and job.cast.aliases == {}
