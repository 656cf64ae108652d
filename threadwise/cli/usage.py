"""``threadwise usage``: an organization's requests, characters and model tokens per UTC day,
and its monthly quota."""

from __future__ import annotations

import argparse

from threadwise.auth.tenancy import tenant_name
from threadwise.cli.arguments import Commands, organization_and_tenant
from threadwise.cli.output import print_json, print_table, progress
from threadwise.cli.stores import database
from threadwise.config import Settings
from threadwise.organizations.policies import OrganizationPolicies
from threadwise.organizations.usage import Counts, UsageStore
from threadwise.organizations.usage_days import report_days, utc_day
from threadwise.organizations.usage_views import usage_document, usage_quota


def add_commands(commands: Commands) -> None:
    usage = commands.add_parser(
        "usage", help="an organization's requests, characters and model tokens per UTC day"
    )
    organization_and_tenant(usage)
    usage.add_argument(
        "--from", dest="first", metavar="YYYY-MM-DD", help="default: the first of this month"
    )
    usage.add_argument("--to", dest="last", metavar="YYYY-MM-DD", help="default: today")
    usage.add_argument("--json", action="store_true", help="print what GET /usage answers")
    usage.set_defaults(run=_usage)


def _usage(args: argparse.Namespace, settings: Settings) -> int:
    with database(settings) as opened:
        store = UsageStore(opened)
        try:
            tenant, organization = tenant_name(args.tenant), args.organization.strip()
            policy = OrganizationPolicies(opened).policy(tenant, organization)
            first, last = report_days(args.first, args.last, utc_day(store.now()))
            report = store.read(tenant, organization, first, last)
            quota = usage_quota(store, tenant, organization, policy)
        except ValueError as exc:  # the tenant, the organization id or the days
            progress(str(exc))
            return 2
    if args.json:
        print_json(usage_document(organization, report, quota))
        return 0
    print(f"usage of organization {organization} (tenant {tenant}), {first} to {last} (UTC days)")
    heading = ["REQUESTS", "CHARACTERS", "PROMPT TOKENS", "COMPLETION TOKENS"]
    rows = [["DATE", "OPERATION", *heading]]
    for day in report.days:
        rows.append([str(day.day), day.operation, *_cells(day.counts)])
    for operation in ("summarize", "translate"):
        rows.append(["total", operation, *_cells(report.of(operation))])
    rows.append(["total", "all", *_cells(report.total)])
    print_table(rows)
    if quota is None:
        print(
            "no monthly quota; `threadwise organizations set ORG --monthly-characters N` sets one"
        )
    else:
        print(
            f"monthly quota: {quota.usedThisMonth} of {quota.monthlyCharacters} characters used "
            f"this month; it starts again on {quota.resetsOn}"
        )
    return 0


def _cells(counts: Counts) -> list[str]:
    return [
        str(value)
        for value in (
            counts.requests,
            counts.characters,
            counts.prompt_tokens,
            counts.completion_tokens,
        )
    ]
