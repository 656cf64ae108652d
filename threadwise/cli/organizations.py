"""``threadwise organizations``: an organization's defaults for requests that set none, its
monthly quota, and where its jobs' webhooks go."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from threadwise.auth.tenancy import tenant_name
from threadwise.cli.arguments import Commands, organization_and_tenant
from threadwise.cli.aspects import aspect_json, print_aspects
from threadwise.cli.output import print_json, print_table, progress
from threadwise.cli.stores import organization_policies
from threadwise.config import Settings
from threadwise.organizations.policies import OrganizationPolicy
from threadwise.webhooks.targets import TargetError, UnsafeTarget, resolve_target


def add_commands(commands: Commands) -> None:
    organizations = commands.add_parser(
        "organizations", help="an organization's defaults for requests that set none"
    )
    organization_commands = organizations.add_subparsers(
        dest="organizations_command", required=True
    )

    show = organization_commands.add_parser(
        "show", help="an organization's defaults and custom aspects"
    )
    organization_and_tenant(show)
    show.add_argument("--json", action="store_true", help="print a JSON object")
    show.set_defaults(run=_show)

    listing = organization_commands.add_parser(
        "list", help="the organizations with defaults or custom aspects"
    )
    listing.add_argument("--tenant", help="only this tenant's organizations")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_list)

    set_defaults = organization_commands.add_parser(
        "set", help="set the defaults given; those not given stay as they are"
    )
    organization_and_tenant(set_defaults)
    set_defaults.add_argument(
        "--aspects",
        metavar="NAME,NAME",
        help="default summaryAspects: built-in or the organization's custom aspects, "
        "comma-separated; '' clears them",
    )
    set_defaults.add_argument(
        "--redact",
        choices=["restore", "mask", "off"],
        help="default redactPersonalData; 'off' clears it",
    )
    set_defaults.add_argument(
        "--monthly-characters",
        type=_quota,
        metavar="N",
        help="the message characters its requests may use per UTC month (a translation's "
        "once per target language); beyond it they are refused with 429 QUOTA_EXCEEDED. "
        "0 or 'none' clears it",
    )
    set_defaults.add_argument(
        "--webhook-url",
        metavar="URL",
        help="where the webhooks of its jobs that name no webhook go (https://...); '' clears it",
    )
    set_defaults.add_argument(
        "--experimental-languages",
        choices=["yes", "no"],
        help="whether its requests may use translation directions labelled experimental "
        "(GET /languages); 'no', the default, refuses them with UNSUPPORTED_LANGUAGE",
    )
    set_defaults.add_argument("--json", action="store_true", help="print a JSON object")
    set_defaults.set_defaults(run=_set)


def _quota(value: str) -> int:
    if value.strip().lower() == "none":
        return 0
    try:
        quota = int(value)
    except ValueError:
        quota = -1
    if quota < 0:
        raise argparse.ArgumentTypeError(
            f"a number of characters (0 or 'none': no quota), got {value!r}"
        )
    return quota


def _show(args: argparse.Namespace, settings: Settings) -> int:
    with organization_policies(settings) as policies:
        try:
            policy = policies.policy(args.tenant, args.organization)
        except ValueError as exc:  # the tenant or the organization id
            progress(str(exc))
            return 2
    _print_policy(args.tenant, args.organization, policy, args.json)
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    with organization_policies(settings) as policies:
        try:
            found = [
                (tenant, organization, policies.policy(tenant, organization))
                for tenant, organization in policies.organizations(args.tenant)
            ]
        except ValueError as exc:  # the tenant
            progress(str(exc))
            return 2
    if args.json:
        print_json([_policy_json(*each) for each in found])
        return 0
    if not found:
        print("no organization has policies; `threadwise organizations set ORG` sets its defaults")
        return 0
    rows = [
        [
            "TENANT",
            "ORGANIZATION",
            "SUMMARY ASPECTS",
            "REDACT",
            "MONTHLY CHARS",
            "WEBHOOK URL",
            "CUSTOM ASPECTS",
        ]
    ]
    for tenant, organization, policy in found:
        rows.append(
            [
                tenant,
                organization,
                ",".join(policy.summary_aspects) or "-",
                policy.redact_personal_data or "-",
                str(policy.monthly_characters or "-"),
                policy.webhook_url or "-",
                ",".join(aspect.name for aspect in policy.custom_aspects) or "-",
            ]
        )
    print_table(rows)
    return 0


def _set(args: argparse.Namespace, settings: Settings) -> int:
    changes: dict[str, Any] = {}
    if args.aspects is not None:
        changes["summary_aspects"] = [name for name in args.aspects.split(",") if name.strip()]
    if args.redact is not None:
        changes["redact_personal_data"] = args.redact
    if args.monthly_characters is not None:
        changes["monthly_characters"] = args.monthly_characters
    if args.webhook_url is not None:
        if args.webhook_url.strip() and not _webhook_checked(args.webhook_url, settings):
            return 2
        changes["webhook_url"] = args.webhook_url
    if args.experimental_languages is not None:
        changes["experimental_languages"] = args.experimental_languages == "yes"
    if not changes:
        progress(
            "nothing to set: give --aspects, --redact, --monthly-characters, --webhook-url, "
            "--experimental-languages or several"
        )
        return 2
    with organization_policies(settings) as policies:
        try:
            policy = policies.set_defaults(args.tenant, args.organization, **changes)
        except ValueError as exc:
            progress(str(exc))
            return 2
    _print_policy(args.tenant, args.organization, policy, args.json)
    return 0


def _webhook_checked(url: str, settings: Settings) -> bool:
    """False (and why, said) for a URL no webhook would be delivered to; a host that does
    not resolve from here is only warned of, as it may from the server."""
    try:
        asyncio.run(resolve_target(url.strip(), settings.webhook_hosts))
    except UnsafeTarget as exc:
        progress(str(exc))
        return False
    except TargetError as exc:
        progress(f"warning: {exc} Its webhooks fail until it does.")
    return True


def _print_policy(
    tenant: str, organization: str, policy: OrganizationPolicy, as_json: bool
) -> None:
    if as_json:
        print_json(_policy_json(tenant, organization, policy))
        return
    print(f"organization {organization.strip()} (tenant {tenant_name(tenant)})")
    print(f"  summary aspects       {', '.join(policy.summary_aspects) or 'no default'}")
    print(f"  redact personal data  {policy.redact_personal_data or 'no default'}")
    quota = policy.monthly_characters
    print(f"  monthly characters    {f'{quota} (UTC month)' if quota else 'no quota'}")
    print(f"  webhook URL           {policy.webhook_url or 'none'}")
    experimental = "allowed" if policy.experimental_languages else "refused"
    print(f"  experimental languages {experimental}")
    if policy.custom_aspects:
        print("custom aspects:")
        print_aspects(policy.custom_aspects)


def _policy_json(tenant: str, organization: str, policy: OrganizationPolicy) -> dict[str, Any]:
    """A policy as ``--json`` prints it; the REST API has no such document."""
    return {
        "tenant": tenant_name(tenant),
        "organization_id": organization.strip(),
        "summary_aspects": list(policy.summary_aspects),
        "redact_personal_data": policy.redact_personal_data,
        "monthly_characters": policy.monthly_characters,
        "webhook_url": policy.webhook_url,
        "experimental_languages": policy.experimental_languages,
        "custom_aspects": [aspect_json(aspect) for aspect in policy.custom_aspects],
    }
