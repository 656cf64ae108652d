"""How the DeepL-compatible API reads keys and language codes and answers errors, as DeepL's
clients expect them (their retry logic reads the status alone)."""

from __future__ import annotations

import math

from fastapi import Request
from fastapi.responses import JSONResponse

from threadwise.api.compat.fields import Fields, bad_request
from threadwise.auth.gate import Principal
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.serving.context import ServingContext
from threadwise.text.languages import TRANSLATION_LANGUAGES

# DeepL answers 456 when the billing period's characters are used up; its clients raise
# QuotaExceededException for it and do not retry.
QUOTA_STATUS = 456
# What DeepL reports as the limit of an account without one.
NO_LIMIT = 1_000_000_000_000
# The code's variants DeepL lists as targets (a bare "EN" or "PT" is still accepted).
REGIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (("EN-GB", "English (British)"), ("EN-US", "English (American)")),
    "pt": (("PT-BR", "Portuguese (Brazilian)"), ("PT-PT", "Portuguese (European)")),
}
_KEY_ERRORS = {
    ErrorCode.MISSING_TOKEN,
    ErrorCode.INVALID_TOKEN,
    ErrorCode.TOKEN_EXPIRED,
    ErrorCode.FORBIDDEN_ORGANIZATION,
}


def auth_key(request: Request, fields: Fields) -> str | None:
    """The key of ``Authorization: DeepL-Auth-Key <key>`` (or ``Bearer <key>``), else of the
    ``auth_key`` parameter older clients send."""
    scheme, _, key = request.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() in ("deepl-auth-key", "bearer") and key.strip():
        return key.strip()
    return fields.optional("auth_key")


async def authenticated(request: Request) -> tuple[Principal, Fields]:
    """The caller of a request that is not a translation (languages, usage, glossaries), and
    its fields."""
    serving: ServingContext = request.app.state.serving
    fields = await Fields.read(request, serving.settings.max_body_bytes)
    caller = await serving.gate.authenticate(auth_key(request, fields), request.headers.get("host"))
    return caller, fields


def error(exc: ServiceError) -> JSONResponse:
    """``{"message"}`` with the status a DeepL client acts on (403 for any key problem, 456
    for the monthly quota, 400 for a request to fix) and ``Retry-After`` when known."""
    status = exc.code.http_status
    if exc.code in _KEY_ERRORS:
        status = 403
    elif exc.code == ErrorCode.QUOTA_EXCEEDED:
        status = QUOTA_STATUS
    elif status in (415, 422):
        status = 400
    headers = None
    if exc.retry_after is not None:
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}  # never early
    return JSONResponse({"message": exc.message}, status_code=status, headers=headers)


def source_language(code: str | None, sources: set[str]) -> str | None:
    """A ``source_lang`` ("EN", "de") as the native language code; None: detect."""
    if code is None:
        return None
    primary = code.strip().split("-")[0].lower()
    if primary not in sources:
        supported = ", ".join(sorted(c.upper() for c in sources))
        raise bad_request(
            f"Value for 'source_lang' not supported: {code!r}; use one of {supported}."
        )
    return primary


def target_language(code: str, targets: set[str]) -> str:
    """A ``target_lang`` ("EN-US", "DE", "pt-br") as the native language tag ("en-US")."""
    primary, _, region = code.strip().partition("-")
    primary = primary.lower()
    variants = {variant for variant, _ in REGIONS.get(primary, ())}
    if primary not in targets or (region and f"{primary.upper()}-{region.upper()}" not in variants):
        supported = ", ".join(target_codes(targets))
        raise bad_request(
            f"Value for 'target_lang' not supported: {code!r}; use one of {supported}."
        )
    return f"{primary}-{region.upper()}" if region else primary


def target_codes(targets: set[str]) -> list[str]:
    """The target codes DeepL would list for these languages."""
    return [code for language in sorted(targets) for code, _ in target_names(language)]


def target_names(language: str) -> tuple[tuple[str, str], ...]:
    name = TRANSLATION_LANGUAGES.get(language, language)
    return REGIONS.get(language) or ((language.upper(), name),)


def detected(language: str | None) -> str:
    """A native language code as DeepL reports a source ("EN")."""
    return (language or "en").split("-")[0].upper()
