"""Validating a translate request before any engine runs."""

from __future__ import annotations

import pytest

from tests.superpowers.translate.requests import GLOSSARY_ES, body
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.superpowers.translate.job import plan


def test_plan_reads_targets_and_refuses_what_it_cannot_do() -> None:
    job = plan(body(["Hi"], targetLanguages=["es-ES", "pt-BR"], translationMode="fast"))
    assert [t.tag for t in job.targets] == ["es-ES", "pt-BR"] and job.tier == "fast"
    no_target = body(["Hi"])
    no_target = no_target.model_copy(
        update={
            "session": no_target.session.model_copy(
                update={"channel": no_target.session.channel.model_copy(update={"language": None})}
            )
        }
    )
    with pytest.raises(ServiceError) as caught:
        plan(no_target)
    assert caught.value.code is ErrorCode.MISSING_TARGET_LANGUAGE
    with pytest.raises(ServiceError) as caught:
        plan(body(["Hi"], targetLanguages=["xx"]))
    assert caught.value.code is ErrorCode.UNSUPPORTED_LANGUAGE


def test_each_target_language_once() -> None:
    with pytest.raises(ServiceError) as caught:
        plan(body(["Hi"], targetLanguages=["es-ES", "fr", "es-es"]))
    assert caught.value.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "targetLanguages[2]" in caught.value.message and "'es-ES'" in caught.value.message
    job = plan(body(["Hi"], targetLanguages=["pt-BR", "pt-PT", "pt"]))
    assert [t.tag for t in job.targets] == ["pt-BR", "pt-PT", "pt"]


def test_a_glossary_for_a_language_not_translated_into_is_refused() -> None:
    request = body(["Hi"], targetLanguages=["fr"], glossaryId="g-1")
    with pytest.raises(ServiceError) as refused:
        plan(request, (GLOSSARY_ES,))
    assert refused.value.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "'support' (en→es)" in refused.value.message
    with pytest.raises(ServiceError) as refused:
        plan(body(["Hi"], glossaryId="nope"), (GLOSSARY_ES,))
    assert "'nope'" in refused.value.message


def test_text_format_source_language_and_context_are_read() -> None:
    job = plan(body(["Hi"], targetLanguages=["es"]))
    assert (job.text_format, job.source, job.context) == ("markdown", None, None)
    job = plan(
        body(
            ["Hi"],
            targetLanguages=["es"],
            textFormat="html",
            sourceLanguage="pt-BR",
            translationContext="A support chat about a late parcel.",
        )
    )
    assert (job.text_format, job.source) == ("html", "pt")
    assert job.wording("pt", "es").context == "A support chat about a late parcel."


@pytest.mark.parametrize("tag", ["tlh", "xx-YY", "not a tag"])
def test_a_source_language_not_translated_from_is_refused(tag: str) -> None:
    with pytest.raises(ServiceError) as refused:
        plan(body(["Hi"], targetLanguages=["es"], sourceLanguage=tag))
    assert refused.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
    assert "request.settings.sourceLanguage" in refused.value.message
