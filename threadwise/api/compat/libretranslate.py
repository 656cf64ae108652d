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

import json
import math
import uuid
from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from threadwise.api.records import record_of
from threadwise.api.work import run_operation
from threadwise.auth.gate import Principal, bearer_token
from threadwise.errors import ServiceError
from threadwise.payload import parse_message_body
from threadwise.protocol import ErrorCode, MessageBody
from threadwise.serving.context import ServingContext
from threadwise.text.languages import TRANSLATION_LANGUAGES

# Not in /openapi.json: its clients follow LibreTranslate's documentation, not this schema.
router = APIRouter(prefix="/libretranslate", tags=["libretranslate"], include_in_schema=False)

# The error codes a LibreTranslate client reads as "the key": it answers 403 for them.
_KEY_ERRORS = {ErrorCode.MISSING_TOKEN, ErrorCode.INVALID_TOKEN, ErrorCode.TOKEN_EXPIRED}


class Fields:
    """A LibreTranslate request's fields: JSON body, form body and query string together."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    @classmethod
    async def read(cls, request: Request, max_bytes: int) -> Fields:
        values: dict[str, Any] = dict(request.query_params)
        raw = await request.body()
        if len(raw) > max_bytes:
            raise _bad(f"The request is over {max_bytes} bytes; send fewer or shorter texts.")
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if raw.strip() and media_type == "application/json":
            try:
                data = json.loads(raw)
            except ValueError as exc:
                raise _bad(f"The body is not valid JSON: {exc}.") from None
            if not isinstance(data, dict):
                raise _bad("The JSON body must be an object with 'q', 'source' and 'target'.")
            values.update(data)
        elif raw.strip():
            try:
                pairs = parse_qsl(raw.decode(), keep_blank_values=True, strict_parsing=False)
            except UnicodeDecodeError:
                raise _bad("The form body is not UTF-8.") from None
            for name, value in pairs:
                if name == "q" and "q" in values:  # q=a&q=b: several texts
                    previous = values["q"]
                    values["q"] = (
                        [*previous, value]
                        if isinstance(previous, list)
                        else [
                            previous,
                            value,
                        ]
                    )
                else:
                    values[name] = value
        return cls(values)

    def text(self, name: str, default: str | None = None) -> str:
        value = self.values.get(name, default)
        if value is None or not isinstance(value, str) or not value.strip():
            if default is not None:
                return default
            raise _bad(f"Invalid request: missing {name} parameter")
        return value.strip()

    def texts(self) -> tuple[list[str], bool]:
        """The texts of ``q``, and whether it was a list (the answer is then one too)."""
        value = self.values.get("q")
        if isinstance(value, str) and value != "":
            return [value], False
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return list(value), True
        raise _bad("Invalid request: missing q parameter (a text, or a list of texts)")

    def token(self, request: Request) -> str | None:
        key = self.values.get("api_key")
        if isinstance(key, str) and key.strip():
            return key.strip()
        return bearer_token(request.headers.get("authorization"))


def _bad(message: str) -> ServiceError:
    return ServiceError(ErrorCode.PAYLOAD_SCHEMA_MISMATCH, message)


def _error(exc: ServiceError) -> JSONResponse:
    status = exc.code.http_status
    if exc.code in _KEY_ERRORS:
        status = 403
    elif status == 422:  # LibreTranslate answers 400 for every request to fix
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
        raise _bad(f"{name} {code!r} is not supported; use one of: {supported}.")
    return code


# LibreTranslate's ``format`` as the native ``textFormat``.
_FORMATS = {"text": "plain", "html": "html"}


def _text_format(fields: Fields) -> str:
    name = fields.text("format", "text").lower()
    if name not in _FORMATS:
        raise _bad(f"format {name[:40]!r} is not supported; use 'text' or 'html'.")
    return _FORMATS[name]


def _native_body(
    texts: list[str], target: str, caller: Principal, text_format: str, source: str | None
) -> dict[str, Any]:
    """The native translate request a LibreTranslate call stands for."""
    organization = sorted(caller.claims.organizations)[0]
    settings = {"targetLanguages": [target], "translationMode": "fast", "textFormat": text_format}
    if source is not None:
        settings["sourceLanguage"] = source
    return {
        "session": {"sessionId": f"libretranslate-{uuid.uuid4().hex[:12]}"},
        "request": {
            "connections": {"threadId": f"libretranslate-{uuid.uuid4().hex[:12]}"},
            "context": {"organizationId": organization},
            "settings": settings,
            "scope": {
                "conversations": [
                    {
                        "conversationId": "libretranslate",
                        "participants": [{"participantId": "p", "role": "EndUser"}],
                        "messages": [{"participantId": "p", "content": text} for text in texts],
                    }
                ]
            },
        },
    }


@router.post("/translate")
async def translate(request: Request) -> JSONResponse:
    """Translate ``q`` (a text or a list) from ``source`` (``auto``: detected) into ``target``;
    ``format`` ``text`` (plain text) or ``html`` (its markup kept); ``alternatives`` is
    accepted and answered with none."""
    serving: ServingContext = request.app.state.serving
    try:
        fields = await Fields.read(request, serving.settings.max_body_bytes)
        texts, as_list = fields.texts()
        source = _language(fields, "source", auto=True)
        target = _language(fields, "target", auto=False)
        assert target is not None
        text_format = _text_format(fields)

        async def read_body(caller: Principal) -> MessageBody:
            native = _native_body(texts, target, caller, text_format, source)
            return parse_message_body(native, serving.admission.limits)

        admitted = await serving.admission.admit(
            "translate",
            fields.token(request),
            request.headers.get("host"),
            read_body,
            record_of(request),
        )
        results = await run_operation(request, admitted)
    except ServiceError as exc:
        return _error(exc)
    items = results[0] if results else []
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
        caller = await serving.gate.authenticate(fields.token(request), request.headers.get("host"))
        texts, _ = fields.texts()
        # Within the organization's limits, as a translation of the same text would be.
        organization = sorted(caller.claims.organizations)[0]
        await serving.gate.admit(caller, organization, sum(len(text) for text in texts))
    except ServiceError as exc:
        return _error(exc)
    code, probability = serving.identify(" ".join(texts))
    if code is None:
        return JSONResponse([])
    return JSONResponse([{"confidence": round(probability * 100, 1), "language": code}])


@router.api_route("/languages", methods=["GET", "POST"])
async def languages(request: Request) -> JSONResponse:
    """Every language with the languages it translates into (open, as LibreTranslate's)."""
    serving: ServingContext = request.app.state.serving
    targets: dict[str, set[str]] = {code: set() for code in TRANSLATION_LANGUAGES}
    for direction in serving.languages()["translation"]:
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
