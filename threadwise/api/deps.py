"""Dependencies shared by the routes, as typed aliases that keep route signatures short."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from threadwise.api.body import read_message_body
from threadwise.protocol import MessageBody
from threadwise.services import Services


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_message_body(request: Request, services: ServicesDep) -> MessageBody:
    return await read_message_body(request, services.settings.max_body_bytes, services.limits)


Body = Annotated[MessageBody, Depends(get_message_body)]
