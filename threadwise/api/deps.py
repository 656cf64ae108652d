"""Dependencies shared by the routes, as typed aliases that keep route signatures short."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request, Security
from fastapi.openapi.models import HTTPBearer as HTTPBearerModel
from fastapi.security.base import SecurityBase
from pydantic import BaseModel

from threadwise.api.body import read_message_body, read_model
from threadwise.api.records import record_of
from threadwise.auth.gate import Principal, bearer_token, check_metrics_access
from threadwise.payload import charged_characters
from threadwise.protocol import MessageBody
from threadwise.services import Services


async def get_services(request: Request) -> Services:
    """Async, as every dependency here: FastAPI runs a plain function in a worker thread."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


class AuthorizationHeader(SecurityBase):
    """The raw ``Authorization`` header, declared as HTTP Bearer so /docs can send one."""

    def __init__(self) -> None:
        self.model = HTTPBearerModel(bearerFormat="JWT")
        self.scheme_name = "bearer"

    async def __call__(self, request: Request) -> str | None:
        return request.headers.get("authorization")


_authorization = AuthorizationHeader()


async def get_principal(
    request: Request,
    services: ServicesDep,
    authorization: Annotated[str | None, Security(_authorization)],
) -> Principal:
    """Who calls: 401 here, before the body is read or any work is done."""
    token = bearer_token(authorization)
    return await services.auth.gate.authenticate(token, request.headers.get("host"))


Caller = Annotated[Principal, Depends(get_principal)]

M = TypeVar("M", bound=BaseModel)


def json_body(model: type[M], max_bytes: int, smaller: str) -> Any:
    """A dependency for a body read as ``model`` (``body.read_model``), and only once the
    caller is known: FastAPI would read and parse a body parameter whole before any
    dependency, the token included. Document it with ``openapi.request_body``."""

    async def read(request: Request, _: Caller) -> M:
        return await read_model(request, model, max_bytes, smaller)

    return Depends(read)


@dataclass(frozen=True)
class Admitted:
    """A superpower request let in: who sent it, its body, and the services to answer it."""

    services: Services
    caller: Principal
    body: MessageBody


async def get_admitted(
    request: Request, authorization: Annotated[str | None, Security(_authorization)]
) -> Admitted:
    """The caller (401 before the body is read or any work is done), then the body, once its
    organization is the caller's and within its rate limits. One dependency rather than a
    tree of them: FastAPI's dependency solving costs more than the rest of a fast request's
    bookkeeping."""
    services: Services = request.app.state.services
    caller = await services.auth.gate.authenticate(
        bearer_token(authorization), request.headers.get("host")
    )
    body = await read_message_body(request, services.settings.max_body_bytes, services.limits)
    organization = body.request.context.organizationId
    services.auth.gate.authorize(caller, organization)
    record_of(request).organization = organization  # rate-limited ones are counted by it
    action = request.url.path.rpartition("/")[2]  # /message/<action>
    await services.auth.gate.admit(caller, organization, charged_characters(body, action))
    return Admitted(services, caller, body)


AdmittedRequest = Annotated[Admitted, Depends(get_admitted)]


async def require_metrics_access(
    request: Request,
    services: ServicesDep,
    authorization: Annotated[str | None, Security(_authorization)],
) -> None:
    """For ``/metrics``: its own token when THREADWISE_METRICS_TOKEN is set, else only from
    this machine."""
    configured = services.settings.metrics_token
    check_metrics_access(
        authorization,
        configured.get_secret_value() if configured else None,
        request.client.host if request.client else None,
    )


MetricsAccess = Depends(require_metrics_access)
