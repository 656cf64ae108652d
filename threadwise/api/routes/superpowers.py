"""``POST /message/{superpower}``: every route here needs a valid token."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from threadwise.api.deps import AdmittedBody, ServicesDep, get_principal
from threadwise.errors import ServiceError
from threadwise.protocol import (
    Envelope,
    ErrorCode,
    MessageBody,
    completed_envelope,
    results_envelope,
)

router = APIRouter(prefix="/message", tags=["superpowers"], dependencies=[Depends(get_principal)])

_BODY_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": MessageBody.model_json_schema()}},
    }
}


@router.post("/summarize", response_model=Envelope, openapi_extra=_BODY_SCHEMA)
async def summarize(body: AdmittedBody, services: ServicesDep) -> JSONResponse:
    """Summarize the conversations of ``request.scope.conversations`` in one summary."""
    items = await services.summarize(body)
    return JSONResponse(completed_envelope("summarize", items, body.request).to_wire())


@router.post("/translate", response_model=Envelope, openapi_extra=_BODY_SCHEMA)
async def translate(body: AdmittedBody, services: ServicesDep) -> JSONResponse:
    """Translate every message into each target language, one result per language."""
    results = await services.translate(body)
    return JSONResponse(results_envelope("translate", results, body.request).to_wire())


@router.post("/{action}", include_in_schema=False)
async def unknown_action(action: str) -> JSONResponse:
    raise ServiceError(
        ErrorCode.UNKNOWN_ACTION,
        f"There is no superpower {action!r}; use POST /message/summarize or /message/translate.",
    )
