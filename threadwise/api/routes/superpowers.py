"""``POST /message/{superpower}``: every route here needs a valid token."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from threadwise.api.deps import AdmittedSummarize, AdmittedTranslate, Caller
from threadwise.api.openapi import error_responses
from threadwise.api.work import run_operation
from threadwise.errors import ServiceError
from threadwise.protocol import (
    Envelope,
    ErrorCode,
    MessageBody,
    results_envelope,
)

router = APIRouter(prefix="/message", tags=["superpowers"])

_ERRORS = error_responses(400, 401, 403, 413, 415, 422, 429, 500, 503, 504)
# The bodies of examples/ shown in /docs (a source checkout has them; an installed package
# documents the schema alone).
_EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _body(**examples: str) -> dict[str, Any]:
    """The request body's schema, with the named examples/ files as its examples."""
    shown = {
        name: {"summary": summary, "value": json.loads((_EXAMPLES / f"{name}.json").read_text())}
        for name, summary in examples.items()
        if (_EXAMPLES / f"{name}.json").is_file()
    }
    content: dict[str, Any] = {"schema": MessageBody.model_json_schema()}
    if shown:
        content["examples"] = shown
    return {"requestBody": {"required": True, "content": {"application/json": content}}}


SUMMARIZE_BODY = _body(
    **{
        "summarize-request": "A support chat summarized in one paragraph",
        "summarize-aspects-request": "Every summary aspect, each its own item",
        "summarize-redacted-request": "Personal data kept from the model, restored in the answer",
    }
)
TRANSLATE_BODY = _body(
    **{
        "translate-request": "Messages translated into Spanish",
        "translate-formality-request": "Into three languages, addressing the reader informally",
    }
)


@router.post("/summarize", response_model=Envelope, responses=_ERRORS, openapi_extra=SUMMARIZE_BODY)
async def summarize(request: Request, admitted: AdmittedSummarize) -> JSONResponse:
    """Summarize the conversations of ``request.scope.conversations`` in one summary, or
    answer each aspect of ``request.settings.summaryAspects`` as its own item.
    An ``Idempotency-Key`` header makes a retry return the first answer."""
    results = await run_operation(request, admitted)
    return JSONResponse(results_envelope("summarize", results, admitted.body.request).to_wire())


@router.post("/translate", response_model=Envelope, responses=_ERRORS, openapi_extra=TRANSLATE_BODY)
async def translate(request: Request, admitted: AdmittedTranslate) -> JSONResponse:
    """Translate every message into each target language, one result per language.
    An ``Idempotency-Key`` header makes a retry return the first answer."""
    results = await run_operation(request, admitted)
    return JSONResponse(results_envelope("translate", results, admitted.body.request).to_wire())


@router.post("/{action}", include_in_schema=False)
async def unknown_action(action: str, _: Caller) -> JSONResponse:
    raise ServiceError(
        ErrorCode.UNKNOWN_ACTION,
        f"There is no superpower {action!r}; use POST /message/summarize or /message/translate.",
    )
