"""``/usage``: what an organization's requests used per UTC day, and its monthly quota, as
DeepL's ``/v2/usage`` reports characters against a limit. Needs a valid token for the
organization it names."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Query

from threadwise.api.deps import Caller, ServingDep
from threadwise.api.openapi import error_responses
from threadwise.errors import ServiceError
from threadwise.organizations.usage_days import report_days, utc_day
from threadwise.organizations.usage_views import Usage, usage_document, usage_quota
from threadwise.protocol import ErrorCode, ErrorEnvelope

router = APIRouter(tags=["usage"])


_ERRORS = {
    **error_responses(401, 403),
    422: {
        "model": ErrorEnvelope,
        "description": "`PAYLOAD_SCHEMA_MISMATCH`: a parameter, with what to fix",
    },
}

OrganizationId = Annotated[str, Query(alias="organizationId")]
_DAY = "YYYY-MM-DD, a UTC day"
First = Annotated[
    str | None,
    Query(alias="from", description=f"{_DAY}; default: the first day of this month."),
]
Last = Annotated[str | None, Query(alias="to", description=f"{_DAY}, included; default: today.")]


@router.get("/usage", responses=_ERRORS)
async def get_usage(
    organization: OrganizationId,
    caller: Caller,
    serving: ServingDep,
    first: First = None,
    last: Last = None,
) -> Usage:
    """The organization's requests, message characters and model tokens per day and
    operation, over at most 366 days (this month by default), and its quota."""
    serving.gate.authorize(caller, organization, "organizationId")
    tenant = caller.claims.tenant
    try:
        first_day, last_day = report_days(first, last, utc_day(serving.usage.now()))
    except ValueError as exc:
        raise ServiceError(ErrorCode.PAYLOAD_SCHEMA_MISMATCH, str(exc)) from None
    report = await anyio.to_thread.run_sync(
        serving.usage.read, tenant, organization, first_day, last_day
    )
    policy = await serving.policies.get(tenant, organization)
    quota = await anyio.to_thread.run_sync(usage_quota, serving.usage, tenant, organization, policy)
    return usage_document(organization, report, quota)
