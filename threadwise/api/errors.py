"""Every failure becomes an error envelope with its code's HTTP status."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from threadwise.api.records import record_of
from threadwise.api.work import ClientGone
from threadwise.auth.grant import OAuthError
from threadwise.errors import ServiceError
from threadwise.payload import field_path
from threadwise.protocol import ErrorCode, error_envelope

log = logging.getLogger("threadwise.api")


def action_of(request: Request) -> str:
    """The superpower a path names (``/message/summarize`` → ``summarize``)."""
    path = request.url.path.rstrip("/")
    if path.startswith("/message/"):
        return path.removeprefix("/message/").split("/")[0] or "superpower"
    return "superpower"


def error_response(
    action_type: str, error: ServiceError, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    envelope = error_envelope(action_type, error.code, error.message, retry_after=error.retry_after)
    headers = dict(headers or {})
    if error.retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(error.retry_after)))  # never early
    if error.code.http_status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(envelope.to_wire(), status_code=error.code.http_status, headers=headers)


async def _on_service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    if exc.code is ErrorCode.PROCESSING_FAILED:
        log.warning("%s failed: %s", request.url.path, exc.message)
    _record(request, exc)
    return error_response(action_of(request), exc)


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s", request.url.path, exc_info=exc)
    error = ServiceError(
        ErrorCode.PROCESSING_FAILED,
        "The request failed inside the service; it has been logged. Retry it; if it keeps "
        "failing, report the request ID.",
    )
    _record(request, error)
    return error_response(action_of(request), error)


async def _on_http_exception(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals (no such path, a method the path does not take) as envelopes."""
    assert isinstance(exc, HTTPException)
    method, path = request.method, request.url.path
    if exc.status_code == 405:
        allowed = exc.headers.get("Allow", "") if exc.headers else ""
        error = ServiceError(
            ErrorCode.METHOD_NOT_ALLOWED,
            f"{path} does not take {method}; it takes {allowed or 'other methods'}.",
        )
    elif exc.status_code == 404:
        error = ServiceError(
            ErrorCode.NOT_FOUND,
            f"There is nothing at {method} {path}; GET /docs lists the endpoints.",
        )
    else:  # no route of this app raises another: answer it as the failure it would be
        return await _on_unexpected(request, exc)
    return error_response(action_of(request), error, exc.headers)


async def _on_invalid_parameters(request: Request, exc: Exception) -> JSONResponse:
    """A parameter FastAPI validates itself (the routes read their bodies themselves)."""
    assert isinstance(exc, RequestValidationError)
    details = "; ".join(f"{field_path(e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
    error = ServiceError(
        ErrorCode.PAYLOAD_SCHEMA_MISMATCH, f"The request does not match the API: {details}."
    )
    return error_response(action_of(request), error)


async def _on_client_gone(request: Request, exc: Exception) -> Response:
    # Nobody reads it; 499 is what proxies log for a client that gave up.
    return Response(status_code=499)


def _record(request: Request, error: ServiceError) -> None:
    """Note the failure in the request record of a superpower call (refusals included)."""
    if not request.url.path.startswith("/message/"):
        return
    record = record_of(request)
    action = action_of(request)
    if record.operation is None and action in ("summarize", "translate"):
        record.operation = action
    record.failed_with(error)


async def _on_oauth_error(request: Request, exc: Exception) -> JSONResponse:
    """The token endpoint answers in OAuth2's format, not the superpower envelope."""
    assert isinstance(exc, OAuthError)
    headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
    if exc.retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    if exc.basic_challenge:
        headers["WWW-Authenticate"] = 'Basic realm="threadwise"'
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, _on_service_error)
    app.add_exception_handler(HTTPException, _on_http_exception)
    app.add_exception_handler(RequestValidationError, _on_invalid_parameters)
    app.add_exception_handler(OAuthError, _on_oauth_error)
    app.add_exception_handler(ClientGone, _on_client_gone)
    app.add_exception_handler(Exception, _on_unexpected)
