"""A DeepL-compatible API under ``/v2``, for the clients that speak it (DeepL's official
libraries, CAT tools, browser extensions): point their server URL at threadwise and give them
an API key (``threadwise api-keys create``).

Each translation is a native translate request through the same admission and pipeline as
``POST /message/translate``, acting for the key's client's first organization: its glossaries,
limits, monthly quota and usage. ``model_type`` picks the tier (``latency_optimized``, the
default here: fast; ``quality_optimized``: the model). Errors are DeepL's ``{"message"}`` with
the status its clients act on (``deepl_answers.error``).
"""

from __future__ import annotations

from typing import Any, Literal

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from threadwise.api.compat import deepl_answers as answers
from threadwise.api.compat.deepl_answers import auth_key, error
from threadwise.api.compat.fields import Fields, bad_request
from threadwise.api.compat.native import TextFormat, Translation, acting_organization, translate
from threadwise.errors import ServiceError
from threadwise.organizations.usage_days import month_start, utc_day
from threadwise.serving.context import ServingContext
from threadwise.serving.languages import served_to_all
from threadwise.text.formality import distinguishes
from threadwise.text.languages import TRANSLATION_LANGUAGES

# Not in /openapi.json: its clients follow DeepL's documentation, not this schema.
router = APIRouter(prefix="/v2", tags=["deepl"], include_in_schema=False)

_FORMALITY = {
    "default": None,
    "more": "formal",
    "less": "informal",
    "prefer_more": "formal",
    "prefer_less": "informal",
}
_MODEL_TYPES: dict[str, Literal["fast", "quality"]] = {
    "latency_optimized": "fast",
    "quality_optimized": "quality",
    "prefer_quality_optimized": "quality",
}
_MODEL_TYPE_USED = {"fast": "latency_optimized", "quality": "quality_optimized"}
_TAG_HANDLING: dict[str, TextFormat] = {"html": "html", "xml": "xml"}
_SPLIT_SENTENCES = {"0", "1", "nonewlines"}


def directions(serving: ServingContext) -> tuple[set[str], set[str]]:
    """The languages translated from, and into, for every organization (experimental
    directions are for those whose policy allows them: GET /languages lists them)."""
    found = [d for d in serving.languages()["translation"] if served_to_all(d)]
    return {d["source"] for d in found}, {d["target"] for d in found}


@router.post("/translate")
async def translate_text(request: Request) -> JSONResponse:
    """Translate ``text`` (one or several) into ``target_lang``: DeepL's parameters, each
    honoured, mapped or accepted as docs/guides/compatible-apis.md lists."""
    serving: ServingContext = request.app.state.serving
    try:
        fields = await Fields.read(request, serving.settings.max_body_bytes)
        texts, _ = fields.texts("text")
        asked, target = _translation(fields, serving)
        items = await translate(request, auth_key(request, fields), texts, target, asked)
    except ServiceError as exc:
        return error(exc)
    billed = fields.flag("show_billed_characters")
    translations = []
    for text, item in zip(texts, items, strict=True):
        answer: dict[str, Any] = {
            "detected_source_language": answers.detected(item.sourceLanguage or asked.source),
            "text": item.content,
        }
        if billed:
            answer["billed_characters"] = len(text)
        if fields.has("model_type"):
            answer["model_type_used"] = _MODEL_TYPE_USED[asked.mode]
        translations.append(answer)
    return JSONResponse({"translations": translations})


def _translation(fields: Fields, serving: ServingContext) -> tuple[Translation, str]:
    """What the request asks for, each parameter checked as DeepL checks it."""
    sources, targets = directions(serving)
    target = answers.target_language(fields.text("target_lang"), targets)
    source = answers.source_language(fields.optional("source_lang"), sources)
    formality_name = fields.text("formality", "default").lower()
    if formality_name not in _FORMALITY:
        raise bad_request(f"Value for 'formality' not supported: {formality_name!r}.")
    formality = _FORMALITY[formality_name]
    language = target.split("-")[0]
    if formality_name in ("more", "less") and not distinguishes(language):
        raise bad_request("'formality' is not supported for given 'target_lang'.")
    if formality is not None and not distinguishes(language):
        formality = None  # prefer_more/prefer_less: where there is no register, none
    model_type = fields.text("model_type", "latency_optimized").lower()
    if model_type not in _MODEL_TYPES:
        raise bad_request(f"Value for 'model_type' not supported: {model_type!r}.")
    tag_handling = fields.optional("tag_handling")
    if tag_handling is not None and tag_handling.lower() not in _TAG_HANDLING:
        raise bad_request(f"Value for 'tag_handling' not supported: {tag_handling!r}.")
    split = fields.optional("split_sentences")
    if split is not None and split.lower() not in _SPLIT_SENTENCES:
        raise bad_request(f"Value for 'split_sentences' not supported: {split!r}.")
    for name in ("preserve_formatting", "outline_detection", "show_billed_characters"):
        fields.flag(name)  # checked; the pipeline keeps formatting anyway
    glossary_id = fields.optional("glossary_id")
    if glossary_id is not None and source is None:
        raise bad_request("Use of a glossary requires the 'source_lang' parameter to be specified.")
    context = fields.optional("context")
    if context is not None and len(context) > serving.settings.max_message_chars:
        raise bad_request(
            f"Parameter 'context' is over {serving.settings.max_message_chars} characters."
        )
    asked = Translation(
        api="deepl",
        mode=_MODEL_TYPES[model_type],
        source=source,
        text_format=_TAG_HANDLING[tag_handling.lower()] if tag_handling else "plain",
        formality=formality,
        glossary_id=glossary_id,
        context=context,
    )
    return asked, target


@router.api_route("/languages", methods=["GET", "POST"])
async def languages(request: Request) -> JSONResponse:
    """The source languages, or the target ones (``type=target``), with DeepL's codes."""
    serving: ServingContext = request.app.state.serving
    try:
        _, fields = await answers.authenticated(request)
        kind = fields.text("type", "source").lower()
        if kind not in ("source", "target"):
            raise bad_request(f"Value for 'type' not supported: {kind!r}; use source or target.")
    except ServiceError as exc:
        return error(exc)
    sources, targets = directions(serving)
    if kind == "source":
        return JSONResponse(
            [
                {"language": code.upper(), "name": TRANSLATION_LANGUAGES.get(code, code)}
                for code in sorted(sources)
            ]
        )
    return JSONResponse(
        [
            {"language": code, "name": name, "supports_formality": distinguishes(language)}
            for language in sorted(targets)
            for code, name in answers.target_names(language)
        ]
    )


@router.api_route("/usage", methods=["GET", "POST"])
async def usage(request: Request) -> JSONResponse:
    """The characters translated and summarized this month, against the monthly quota."""
    serving: ServingContext = request.app.state.serving
    try:
        caller, _ = await answers.authenticated(request)
    except ServiceError as exc:
        return error(exc)
    tenant, organization = caller.claims.tenant, acting_organization(caller)
    today = utc_day(serving.usage.now())
    month = await anyio.to_thread.run_sync(
        serving.usage.read, tenant, organization, month_start(today), today
    )
    policy = await serving.policies.get(tenant, organization)
    limit = policy.monthly_characters
    return JSONResponse(
        {
            "character_count": month.total.characters,
            "character_limit": answers.NO_LIMIT if limit is None else limit,
        }
    )
