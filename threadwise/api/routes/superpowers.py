"""``POST /message/{superpower}``: every route here needs a valid token."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from threadwise.api.deps import AdmittedRequest, Caller
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
_BODY_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": MessageBody.model_json_schema()}},
    }
}


@router.post("/summarize", response_model=Envelope, responses=_ERRORS, openapi_extra=_BODY_SCHEMA)
async def summarize(request: Request, admitted: AdmittedRequest) -> JSONResponse:
    """Summarize the conversations of ``request.scope.conversations`` in one summary.
    An ``Idempotency-Key`` header makes a retry return the first answer."""
    results = await run_operation(request, admitted, "summarize")
    return JSONResponse(results_envelope("summarize", results, admitted.body.request).to_wire())


@router.post("/translate", response_model=Envelope, responses=_ERRORS, openapi_extra=_BODY_SCHEMA)
async def translate(request: Request, admitted: AdmittedRequest) -> JSONResponse:
    """Translate every message into each target language, one result per language.
    An ``Idempotency-Key`` header makes a retry return the first answer."""
    results = await run_operation(request, admitted, "translate")
    return JSONResponse(results_envelope("translate", results, admitted.body.request).to_wire())


@router.post("/{action}", include_in_schema=False)
async def unknown_action(action: str, _: Caller) -> JSONResponse:
    raise ServiceError(
        ErrorCode.UNKNOWN_ACTION,
        f"There is no superpower {action!r}; use POST /message/summarize or /message/translate.",
    )
