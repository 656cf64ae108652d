"""Dependencies shared by the routes, as typed aliases that keep route signatures short."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.openapi.models import HTTPBearer as HTTPBearerModel
from fastapi.security.base import SecurityBase

from threadwise.api.body import read_message_body
from threadwise.api.records import record_of
from threadwise.auth.gate import Principal, bearer_token, check_metrics_token
from threadwise.payload import character_count
from threadwise.protocol import MessageBody
from threadwise.services import Services


def get_services(request: Request) -> Services:
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


async def get_message_body(request: Request, services: ServicesDep) -> MessageBody:
    return await read_message_body(request, services.settings.max_body_bytes, services.limits)


Body = Annotated[MessageBody, Depends(get_message_body)]


async def get_admitted_body(
    request: Request, caller: Caller, body: Body, services: ServicesDep
) -> MessageBody:
    """The body, once its organization is the caller's and within its rate limits."""
    organization = body.request.context.organizationId
    record_of(request).organization = organization  # refusals are counted by organization
    await services.auth.gate.admit(caller, organization, character_count(body))
    return body


AdmittedBody = Annotated[MessageBody, Depends(get_admitted_body)]


async def require_metrics_token(
    services: ServicesDep, authorization: Annotated[str | None, Security(_authorization)]
) -> None:
    """For ``/metrics``: its own token when THREADWISE_METRICS_TOKEN is set, else open."""
    configured = services.settings.metrics_token
    check_metrics_token(authorization, configured.get_secret_value() if configured else None)


MetricsAccess = Depends(require_metrics_token)
