"""``/usage``: what an organization's requests used per UTC day, and its monthly quota, as
DeepL's ``/v2/usage`` reports characters against a limit. Needs a valid token for the
organization it names."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

import anyio.to_thread
from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from threadwise.api.deps import Caller, ServingDep
from threadwise.api.openapi import error_responses
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, ErrorEnvelope
from threadwise.serving.policies import OrganizationPolicy
from threadwise.serving.usage import (
    Counts,
    UsageReport,
    UsageStore,
    month_start,
    next_month,
    report_days,
    utc_day,
)

router = APIRouter(tags=["usage"])


_ERRORS = {
    **error_responses(401, 403),
    422: {
        "model": ErrorEnvelope,
        "description": "`PAYLOAD_SCHEMA_MISMATCH`: a parameter, with what to fix",
    },
}

UsageOperation = Literal["summarize", "translate"]


class UsageCounts(BaseModel):
    requests: int = Field(description="Requests answered (failed ones are not counted).")
    characters: int = Field(
        description="Message characters; a translation's once per target language."
    )
    promptTokens: int = Field(description="Model tokens read; none for an answer from a cache.")
    completionTokens: int = Field(description="Model tokens written.")


class UsageByOperation(BaseModel):
    summarize: UsageCounts
    translate: UsageCounts


class UsageTotals(BaseModel):
    requests: int
    charactersTranslated: int
    charactersSummarized: int
    promptTokens: int
    completionTokens: int
    byOperation: UsageByOperation


class UsageDay(BaseModel):
    date: dt.date = Field(description="The UTC day.")
    operation: UsageOperation
    requests: int
    characters: int
    promptTokens: int
    completionTokens: int


class UsageQuota(BaseModel):
    monthlyCharacters: int = Field(description="The characters allowed per UTC calendar month.")
    usedThisMonth: int = Field(description="The characters used this month, whatever the range.")
    resetsOn: dt.date = Field(description="The first day of next month (UTC).")


class Usage(BaseModel):
    # "from" is a Python keyword: the field has another name, and that alias on the wire.
    model_config = ConfigDict(populate_by_name=True)

    organizationId: str
    from_: dt.date = Field(alias="from", description="The first day reported (UTC).")
    to: dt.date = Field(description="The last day reported (UTC), included.")
    totals: UsageTotals
    days: list[UsageDay] = Field(
        description="By date, then operation; only the days and operations with requests."
    )
    quota: UsageQuota | None = Field(
        description="The organization's monthly character quota; null when it has none."
    )


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


def usage_quota(
    store: UsageStore, tenant: str, organization: str, policy: OrganizationPolicy
) -> UsageQuota | None:
    """The organization's quota and what this month used of it (blocking)."""
    if policy.monthly_characters is None:
        return None
    today = utc_day(store.now())
    month = store.read(tenant, organization, month_start(today), today)
    return UsageQuota(
        monthlyCharacters=policy.monthly_characters,
        usedThisMonth=month.total.characters,
        resetsOn=next_month(today),
    )


def usage_document(organization: str, report: UsageReport, quota: UsageQuota | None) -> Usage:
    """What ``GET /usage`` answers (and ``threadwise usage --json`` prints)."""
    summarized, translated, total = report.of("summarize"), report.of("translate"), report.total
    return Usage(
        organizationId=organization,
        from_=report.first_day,
        to=report.last_day,
        totals=UsageTotals(
            requests=total.requests,
            charactersTranslated=translated.characters,
            charactersSummarized=summarized.characters,
            promptTokens=total.prompt_tokens,
            completionTokens=total.completion_tokens,
            byOperation=UsageByOperation(
                summarize=_counts(summarized), translate=_counts(translated)
            ),
        ),
        days=[
            UsageDay(date=day.day, operation=day.operation, **_counts(day.counts).model_dump())
            for day in report.days
        ],
        quota=quota,
    )


def _counts(counts: Counts) -> UsageCounts:
    return UsageCounts(
        requests=counts.requests,
        characters=counts.characters,
        promptTokens=counts.prompt_tokens,
        completionTokens=counts.completion_tokens,
    )
