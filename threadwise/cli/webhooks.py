"""``threadwise webhooks secret``: the secrets that sign an organization's webhooks, which its
receivers verify them with."""

from __future__ import annotations

import argparse

from threadwise.cli.arguments import Commands, organization_and_tenant
from threadwise.cli.output import print_table, progress
from threadwise.cli.stores import webhook_secret_store
from threadwise.config import Settings
from threadwise.webhooks.secret_store import ROTATION_OVERLAP, SigningSecret


def add_commands(commands: Commands) -> None:
    webhooks = commands.add_parser("webhooks", help="the secrets that sign webhooks")
    webhook_commands = webhooks.add_subparsers(dest="webhooks_command", required=True)
    secret = webhook_commands.add_parser("secret", help="an organization's webhook signing secret")
    secret_commands = secret.add_subparsers(dest="webhooks_secret_command", required=True)

    create = secret_commands.add_parser(
        "create", help="create the organization's secret; prints it alone on the last line"
    )
    organization_and_tenant(create)
    create.set_defaults(run=_create)

    hours = ROTATION_OVERLAP.total_seconds() / 3600
    rotate = secret_commands.add_parser(
        "rotate",
        help=f"a new secret; the previous one signs too for {hours:g} h, so receivers can "
        "switch; prints the new one alone on the last line",
    )
    organization_and_tenant(rotate)
    rotate.set_defaults(run=_rotate)

    show = secret_commands.add_parser(
        "show", help="the secrets that sign now; prints the current one alone on the last line"
    )
    organization_and_tenant(show)
    show.set_defaults(run=_show)


def _create(args: argparse.Namespace, settings: Settings) -> int:
    with webhook_secret_store(settings) as store:
        try:
            created = store.create(args.tenant, args.organization)
        except ValueError as exc:
            progress(str(exc))
            return 2
    print(f"created the webhook signing secret of organization {args.organization}")
    print("Its receivers verify webhooks with it (Standard Webhooks); keep it secret.")
    print(created.secret)
    return 0


def _rotate(args: argparse.Namespace, settings: Settings) -> int:
    with webhook_secret_store(settings) as store:
        try:
            rotated = store.rotate(args.tenant, args.organization)
        except ValueError as exc:
            progress(str(exc))
            return 2
    ends = rotated.created_at + ROTATION_OVERLAP
    print(f"rotated the webhook signing secret of organization {args.organization}")
    print(
        f"Webhooks are signed with both until {ends:%Y-%m-%d %H:%M} UTC: give its receivers "
        "the new one before then."
    )
    print(rotated.secret)
    return 0


def _show(args: argparse.Namespace, settings: Settings) -> int:
    with webhook_secret_store(settings) as store:
        try:
            found = store.current(args.tenant, args.organization)
        except ValueError as exc:
            progress(str(exc))
            return 2
    if not found:
        progress(
            f"organization {args.organization} has no webhook signing secret; "
            f"`threadwise webhooks secret create {args.organization}` creates one"
        )
        return 1
    print_table([["SECRET ID", "CREATED", "SIGNS UNTIL"], *map(_row, found)])
    print(found[0].secret)
    return 0


def _row(secret: SigningSecret) -> list[str]:
    until = f"{secret.expires_at:%Y-%m-%d %H:%M}" if secret.expires_at else "rotated"
    return [secret.secret_id, f"{secret.created_at:%Y-%m-%d %H:%M}", until]
