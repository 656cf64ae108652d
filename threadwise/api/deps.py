"""Dependencies shared by the routes, as typed aliases that keep route signatures short."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request, Security
from fastapi.openapi.models import HTTPBearer as HTTPBearerModel
from fastapi.security.base import SecurityBase
from pydantic import BaseModel

from threadwise.api.body import read_message_body, read_model
from threadwise.api.records import record_of
from threadwise.auth.gate import Principal, bearer_token, check_metrics_access
from threadwise.serving.admission import Admitted
from threadwise.serving.context import ServingContext
from threadwise.serving.operations import Operation


async def get_serving(request: Request) -> ServingContext:
    """Async, as every dependency here: FastAPI runs a plain function in a worker thread."""
    serving: ServingContext = request.app.state.serving
    return serving


ServingDep = Annotated[ServingContext, Depends(get_serving)]


class AuthorizationHeader(SecurityBase):
    """The raw ``Authorization`` header, declared as HTTP Bearer so /docs can send one."""

    def __init__(self) -> None:
        self.model = HTTPBearerModel(bearerFormat="JWT")
        self.scheme_name = "bearer"

    async def __call__(self, request: Request) -> str | None:
        return request.headers.get("authorization")


authorization_header = AuthorizationHeader()


async def get_principal(
    request: Request,
    serving: ServingDep,
    authorization: Annotated[str | None, Security(authorization_header)],
) -> Principal:
    """Who calls: 401 here, before the body is read or any work is done."""
    token = bearer_token(authorization)
    return await serving.gate.authenticate(token, request.headers.get("host"))


Caller = Annotated[Principal, Depends(get_principal)]

M = TypeVar("M", bound=BaseModel)


def json_body(model: type[M], max_bytes: int, smaller: str) -> Any:
    """A dependency for a body read as ``model`` (``body.read_model``), and only once the
    caller is known: FastAPI would read and parse a body parameter whole before any
    dependency, the token included. Document it with ``openapi.request_body``."""

    async def read(request: Request, _: Caller) -> M:
        return await read_model(request, model, max_bytes, smaller)

    return Depends(read)


def admitted(operation: Operation) -> Callable[..., Awaitable[Admitted]]:
    """The dependency of ``POST /message/<operation>``: its request let in by the one
    admission of every transport (``serving/admission.py``). One dependency rather than a
    tree of them: FastAPI's dependency solving costs more than the rest of a fast request's
    bookkeeping."""

    async def admit(
        request: Request, authorization: Annotated[str | None, Security(authorization_header)]
    ) -> Admitted:
        serving: ServingContext = request.app.state.serving
        max_bytes = serving.settings.max_body_bytes
        return await serving.admission.admit(
            operation,
            bearer_token(authorization),
            request.headers.get("host"),
            lambda _caller: read_message_body(request, max_bytes),
            record_of(request),
        )

    return admit


AdmittedSummarize = Annotated[Admitted, Depends(admitted("summarize"))]
AdmittedTranslate = Annotated[Admitted, Depends(admitted("translate"))]


async def require_metrics_access(
    request: Request,
    serving: ServingDep,
    authorization: Annotated[str | None, Security(authorization_header)],
) -> None:
    """For ``/metrics``: its own token when THREADWISE_METRICS_TOKEN is set, else only from
    this machine."""
    configured = serving.settings.metrics_token
    check_metrics_access(
        authorization,
        configured.get_secret_value() if configured else None,
        request.client.host if request.client else None,
    )


MetricsAccess = Depends(require_metrics_access)
