"""DeepL's language codes and error statuses, as its clients read them."""

from __future__ import annotations

import pytest

from threadwise.api.compat import deepl_answers as answers
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

LANGUAGES = {"en", "es", "fr", "de", "pt"}


@pytest.mark.parametrize(
    ("given", "native"),
    [("DE", "de"), ("en-us", "en-US"), ("EN-GB", "en-GB"), ("PT-BR", "pt-BR"), ("EN", "en")],
)
def test_target_codes_become_language_tags(given: str, native: str) -> None:
    assert answers.target_language(given, LANGUAGES) == native


@pytest.mark.parametrize("given", ["XX", "DE-AT", "EN-AU", "", "ja"])
def test_a_target_not_served_is_a_request_to_fix(given: str) -> None:
    with pytest.raises(ServiceError) as refused:
        answers.target_language(given, LANGUAGES)
    assert refused.value.code == ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "EN-US" in refused.value.message  # says what to use instead


def test_source_codes_drop_the_region_and_none_means_detect() -> None:
    assert answers.source_language("EN", LANGUAGES) == "en"
    assert answers.source_language("pt-BR", LANGUAGES) == "pt"
    assert answers.source_language(None, LANGUAGES) is None
    with pytest.raises(ServiceError):
        answers.source_language("IT", LANGUAGES)


def test_targets_are_listed_with_deepls_variants() -> None:
    assert answers.target_codes({"en", "pt", "de"}) == ["DE", "EN-GB", "EN-US", "PT-BR", "PT-PT"]
    assert answers.detected("pt") == "PT" and answers.detected(None) == "EN"


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (ErrorCode.MISSING_TOKEN, 403),
        (ErrorCode.INVALID_TOKEN, 403),
        (ErrorCode.FORBIDDEN_ORGANIZATION, 403),
        (ErrorCode.QUOTA_EXCEEDED, 456),
        (ErrorCode.PAYLOAD_SCHEMA_MISMATCH, 400),
        (ErrorCode.UNSUPPORTED_LANGUAGE, 400),
        (ErrorCode.NOT_FOUND, 404),
        (ErrorCode.PAYLOAD_TOO_LARGE, 413),
        (ErrorCode.RATE_LIMITED, 429),
        (ErrorCode.OVERLOADED, 503),
    ],
)
def test_error_statuses(code: ErrorCode, status: int) -> None:
    answer = answers.error(ServiceError(code, "What to fix."))
    assert answer.status_code == status and answer.body == b'{"message":"What to fix."}'


def test_retry_after_is_whole_seconds_never_early() -> None:
    answer = answers.error(ServiceError(ErrorCode.RATE_LIMITED, "Slow down.", retry_after=0.2))
    assert answer.headers["retry-after"] == "1"
