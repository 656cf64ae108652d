"""Read client credentials the three ways clients send them (`docs/protocol/client.md` §1).

The official client puts them in the query string with an empty form body; others send a
form body or HTTP Basic. Each parameter may come once (RFC 6749 §3.2), and a client uses one
way of authenticating, not two (§2.3).
"""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qsl, unquote_plus

from fastapi import Request

from threadwise.auth.grant import ClientCredentials, OAuthError

MAX_FORM_BYTES = 8 * 1024
_FIELDS = ("grant_type", "client_id", "client_secret")


async def read_client_credentials(request: Request) -> ClientCredentials:
    fields: dict[str, str] = {}
    for key, value in [*request.query_params.multi_items(), *await _form_items(request)]:
        if key not in _FIELDS:
            continue
        if key in fields:
            raise OAuthError(400, "invalid_request", f"{key} is given more than once.")
        fields[key] = value
    basic = _basic_credentials(request.headers.get("authorization"))
    if basic is None:
        return ClientCredentials(
            fields.get("grant_type"), fields.get("client_id"), fields.get("client_secret")
        )
    client_id, secret = basic
    if "client_secret" in fields or fields.get("client_id", client_id) != client_id:
        raise OAuthError(
            400,
            "invalid_request",
            "Send the client credentials one way: HTTP Basic, or client_id and client_secret "
            "as parameters, not both.",
        )
    return ClientCredentials(fields.get("grant_type"), client_id, secret, via_basic=True)


async def _form_items(request: Request) -> list[tuple[str, str]]:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/x-www-form-urlencoded":
        return []
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise OAuthError(
                413, "invalid_request", f"The form body is over {MAX_FORM_BYTES} bytes."
            )
    try:
        return parse_qsl(body.decode(), keep_blank_values=True)
    except UnicodeDecodeError:
        raise OAuthError(400, "invalid_request", "The form body is not UTF-8.") from None


def _basic_credentials(authorization: str | None) -> tuple[str, str] | None:
    if not authorization:
        return None
    scheme, _, encoded = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        decoded = ""
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        raise OAuthError(
            400,
            "invalid_request",
            "The Authorization header must be 'Basic base64(client_id:client_secret)'.",
            basic_challenge=True,
        )
    # RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
    return unquote_plus(client_id), unquote_plus(secret)
