"""``POST /auth/oauth2/token``: access tokens for registered clients (OAuth2 client credentials)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from threadwise.api.deps import ServingDep
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


class Token(BaseModel):
    access_token: str
    token_type: Literal["Bearer"]
    expires_in: int
    token: str  # access_token again, for clients that read this name
    scope: str


class OAuthErrorBody(BaseModel):
    """RFC 6749 §5.2: the token endpoint's errors are OAuth2's, not the superpower envelope."""

    error: Literal[
        "invalid_request", "invalid_client", "unsupported_grant_type", "temporarily_unavailable"
    ]
    error_description: str


def _oauth_error(description: str) -> dict[str, Any]:
    return {"model": OAuthErrorBody, "description": description}


_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _oauth_error(
        "`invalid_request`: no credentials; a parameter given more than once (in the query "
        "string and in the form body, say: each comes once, RFC 6749 §3.2); credentials sent "
        "both as parameters and by HTTP Basic; a malformed Basic header; a host that names no "
        "tenant. `unsupported_grant_type`: a grant type other than `client_credentials`."
    ),
    401: _oauth_error("`invalid_client`: unknown client, wrong secret, or a revoked client."),
    413: _oauth_error("`invalid_request`: a form body over 8 KiB."),
    429: {
        **_oauth_error(
            "`temporarily_unavailable`: too many failed token requests for this client id "
            "or from this address."
        ),
        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
    },
}


@router.post(
    "/auth/oauth2/token", response_model=Token, responses=_RESPONSES, openapi_extra=_PARAMETERS
)
async def token(request: Request, serving: ServingDep) -> JSONResponse:
    """Exchange ``client_id`` and ``client_secret`` (query string, form body or HTTP Basic)
    with ``grant_type=client_credentials`` for a bearer token. Each parameter comes once:
    in the query string or in the form body, not in both."""
    credentials = await read_client_credentials(request)
    address = request.client.host if request.client else None
    issued = await serving.grant.issue(credentials, request.headers.get("host"), address)
    return JSONResponse(issued.body(), headers=NO_STORE)
