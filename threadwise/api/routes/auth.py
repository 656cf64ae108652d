"""``POST /auth/oauth2/token``: access tokens for registered clients (OAuth2 client credentials)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from threadwise.api.deps import ServicesDep
from threadwise.api.oauth import read_client_credentials

router = APIRouter(tags=["auth"])

# RFC 6749 §5.1: a response carrying a token must not be cached.
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}

_PARAMETERS: dict[str, Any] = {
    "parameters": [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"}}
        for name in ("grant_type", "client_id", "client_secret")
    ],
    "requestBody": {
        "required": False,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "grant_type": {"type": "string", "enum": ["client_credentials"]},
                        "client_id": {"type": "string"},
                        "client_secret": {"type": "string"},
                    },
                }
            }
        },
    },
}


@router.post("/auth/oauth2/token", openapi_extra=_PARAMETERS)
async def token(request: Request, services: ServicesDep) -> JSONResponse:
    """Exchange ``client_id`` and ``client_secret`` (query string, form body or HTTP Basic)
    with ``grant_type=client_credentials`` for a bearer token."""
    credentials = await read_client_credentials(request)
    address = request.client.host if request.client else None
    issued = await services.auth.grant.issue(credentials, request.headers.get("host"), address)
    return JSONResponse(issued.body(), headers=NO_STORE)
