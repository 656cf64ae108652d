"""A LibreTranslate-compatible API under ``/libretranslate``, for the clients that speak it
(Mastodon, Discourse, browser extensions, ``libretranslatepy``): point their endpoint at
``http://host/libretranslate``.

Each call is a native translate request (fast tier, the caller's first organization) through
the same admission and pipeline as ``POST /message/translate``; only its shape differs. The
request reads as LibreTranslate reads it: a form or a JSON body, ``q`` one text or a list,
``api_key`` in the body or the query (or ``Authorization: Bearer``). Errors are LibreTranslate's
``{"error": message}``: 400 for a request to fix, 403 for a missing or invalid key, 429 over the
limits, 503 when the server cannot take it now.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from threadwise.api.compat import native
from threadwise.api.compat.fields import Fields, bad_request
from threadwise.api.compat.native import TextFormat, Translation, acting_organization
from threadwise.auth.gate import bearer_token
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.serving.context import ServingContext
from threadwise.serving.languages import served_to_all
from threadwise.text.languages import TRANSLATION_LANGUAGES

# Not in /openapi.json: its clients follow LibreTranslate's documentation, not this schema.
router = APIRouter(prefix="/libretranslate", tags=["libretranslate"], include_in_schema=False)

# The error codes a LibreTranslate client reads as "the key": it answers 403 for them.
_KEY_ERRORS = {ErrorCode.MISSING_TOKEN, ErrorCode.INVALID_TOKEN, ErrorCode.TOKEN_EXPIRED}
# LibreTranslate's ``format`` as the native ``textFormat``.
_FORMATS: dict[str, TextFormat] = {"text": "plain", "html": "html"}


def _token(request: Request, fields: Fields) -> str | None:
    """``api_key`` in the body or query, else ``Authorization: Bearer``."""
    return fields.optional("api_key") or bearer_token(request.headers.get("authorization"))


def _error(exc: ServiceError) -> JSONResponse:
    status = exc.code.http_status
    if exc.code in _KEY_ERRORS:
        status = 403
    elif status in (415, 422):  # LibreTranslate answers 400 for every request to fix
        status = 400
    headers = None
    if exc.retry_after is not None:
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}  # never early
    return JSONResponse({"error": exc.message}, status_code=status, headers=headers)


def _language(fields: Fields, name: str, *, auto: bool) -> str | None:
    code = fields.text(name, "auto" if auto else None).lower()
    if auto and code == "auto":
        return None
    primary = code.split("-")[0].split("_")[0]
    if primary not in TRANSLATION_LANGUAGES:
        supported = ", ".join(TRANSLATION_LANGUAGES)
        raise bad_request(f"{name} {code!r} is not supported; use one of: {supported}.")
    return code


def _text_format(fields: Fields) -> TextFormat:
    name = fields.text("format", "text").lower()
    if name not in _FORMATS:
        raise bad_request(f"format {name[:40]!r} is not supported; use 'text' or 'html'.")
    return _FORMATS[name]


@router.post("/translate")
async def translate(request: Request) -> JSONResponse:
    """Translate ``q`` (a text or a list) from ``source`` (``auto``: detected) into ``target``;
    ``format`` ``text`` (plain text) or ``html`` (its markup kept); ``alternatives`` is
    accepted and answered with none."""
    serving: ServingContext = request.app.state.serving
    try:
        fields = await Fields.read(request, serving.settings.max_body_bytes)
        texts, as_list = fields.texts("q")
        source = _language(fields, "source", auto=True)
        target = _language(fields, "target", auto=False)
        assert target is not None
        asked = Translation("libretranslate", source=source, text_format=_text_format(fields))
        items = await native.translate(request, _token(request, fields), texts, target, asked)
    except ServiceError as exc:
        return _error(exc)
    translated = [item.content for item in items]
    answer: dict[str, Any] = {"translatedText": translated if as_list else translated[0]}
    if source is None:
        detected = [{"confidence": 90.0, "language": item.sourceLanguage or "en"} for item in items]
        answer["detectedLanguage"] = detected if as_list else detected[0]
    if "alternatives" in fields.values:
        answer["alternatives"] = [[] for _ in items] if as_list else []
    return JSONResponse(answer)


@router.post("/detect")
async def detect(request: Request) -> JSONResponse:
    """The language of ``q``: ``[{"confidence", "language"}]``."""
    serving: ServingContext = request.app.state.serving
    try:
        fields = await Fields.read(request, serving.settings.max_body_bytes)
        caller = await serving.gate.authenticate(
            _token(request, fields), request.headers.get("host")
        )
        texts, _ = fields.texts("q")
        # Within the organization's limits, as a translation of the same text would be.
        organization = acting_organization(caller)
        await serving.gate.admit(caller, organization, sum(len(text) for text in texts))
    except ServiceError as exc:
        return _error(exc)
    code, probability = serving.identify(" ".join(texts))
    if code is None:
        return JSONResponse([])
    return JSONResponse([{"confidence": round(probability * 100, 1), "language": code}])


@router.api_route("/languages", methods=["GET", "POST"])
async def languages(request: Request) -> JSONResponse:
    """Every language with the languages it translates into (open, as LibreTranslate's):
    the directions served to every organization."""
    serving: ServingContext = request.app.state.serving
    targets: dict[str, set[str]] = {}
    for direction in serving.languages()["translation"]:
        if served_to_all(direction):
            targets.setdefault(direction["source"], set()).add(direction["target"])
    return JSONResponse(
        [
            {"code": code, "name": TRANSLATION_LANGUAGES.get(code, code), "targets": sorted(to)}
            for code, to in targets.items()
        ]
    )


@router.get("/frontend/settings")
async def frontend_settings(request: Request) -> JSONResponse:
    """What a LibreTranslate front end asks first: limits and whether a key is needed."""
    serving: ServingContext = request.app.state.serving
    return JSONResponse(
        {
            "apiKeys": True,
            "keyRequired": True,
            "charLimit": serving.settings.max_message_chars,
            "frontendTimeout": 500,
            "suggestions": False,
            "filesTranslation": False,
            "supportedFilesFormat": [],
            "language": {
                "source": {"code": "auto", "name": "Auto Detect"},
                "target": {"code": "en", "name": "English"},
            },
        }
    )
