"""``threadwise clients``: register the clients that may fetch tokens, list, revoke and rotate
them."""

from __future__ import annotations

import argparse
from typing import Any

from threadwise.auth.clients import ClientRecord, ClientSecret
from threadwise.auth.tenancy import DEFAULT_TENANT
from threadwise.cli.arguments import Commands
from threadwise.cli.output import print_json, print_table, progress
from threadwise.cli.stores import client_registry
from threadwise.config import Settings


def add_commands(commands: Commands) -> None:
    clients = commands.add_parser("clients", help="manage the clients that may fetch tokens")
    client_commands = clients.add_subparsers(dest="clients_command", required=True)

    create = client_commands.add_parser("create", help="register a client; prints its secret once")
    create.add_argument(
        "--org",
        action="append",
        required=True,
        metavar="ORG",
        help="an organization id the client may act for (repeat for several)",
    )
    create.add_argument("--tenant", default=DEFAULT_TENANT, help="default: %(default)s")
    create.add_argument("--name", help="a note saying whose client this is")
    create.add_argument("--requests-per-minute", type=int, metavar="N")
    create.add_argument("--characters-per-minute", type=int, metavar="N")
    create.add_argument("--json", action="store_true", help="print a JSON object")
    create.set_defaults(run=_create)

    listing = client_commands.add_parser("list", help="show the clients (never their secrets)")
    listing.add_argument("--tenant", help="only this tenant's clients")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_list)

    revoke = client_commands.add_parser("revoke", help="disable a client and its tokens")
    revoke.add_argument("client_id")
    revoke.set_defaults(run=_revoke)

    rotate = client_commands.add_parser("rotate", help="give a client a new secret")
    rotate.add_argument("client_id")
    rotate.add_argument("--json", action="store_true", help="print a JSON object")
    rotate.set_defaults(run=_rotate)


def _create(args: argparse.Namespace, settings: Settings) -> int:
    with client_registry(settings) as registry:
        try:
            created = registry.create(
                args.tenant,
                args.org,
                args.name or "",
                requests_per_minute=args.requests_per_minute,
                characters_per_minute=args.characters_per_minute,
            )
        except ValueError as exc:  # the tenant, an organization or a limit
            progress(str(exc))
            return 2
    _print_secret(created, args.json, "created")
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    with client_registry(settings) as registry:
        clients = registry.list(args.tenant)
    if args.json:
        print_json([client_json(client) for client in clients])
        return 0
    if not clients:
        print("no clients; `threadwise clients create --org ORG` creates one")
        return 0
    rows = [["CLIENT ID", "TENANT", "STATE", "CREATED", "LAST TOKEN", "ORGANIZATIONS", "NAME"]]
    for client in clients:
        rows.append(
            [
                client.client_id,
                client.tenant,
                "enabled" if client.enabled else "revoked",
                f"{client.created_at:%Y-%m-%d %H:%M}",
                f"{client.last_used_at:%Y-%m-%d %H:%M}" if client.last_used_at else "never",
                ",".join(client.organizations),
                client.name,
            ]
        )
    print_table(rows)
    return 0


def _revoke(args: argparse.Namespace, settings: Settings) -> int:
    with client_registry(settings) as registry:
        client = registry.revoke(args.client_id)
    print(
        f"revoked {client.client_id}: it gets no new tokens, and the ones it has are refused "
        f"(by every replica within {settings.store_cache_seconds:g} s)"
    )
    return 0


def _rotate(args: argparse.Namespace, settings: Settings) -> int:
    with client_registry(settings) as registry:
        rotated = registry.rotate(args.client_id)
    _print_secret(rotated, args.json, "new secret for")
    return 0


def _print_secret(credentials: ClientSecret, as_json: bool, what: str) -> None:
    client = credentials.client
    if as_json:
        print_json({**client_json(client), "client_secret": credentials.client_secret})
        return
    print(f"{what} client {client.client_id} (tenant {client.tenant})")
    print(f"  client_id      {client.client_id}")
    print(f"  client_secret  {credentials.client_secret}")
    print(f"  organizations  {', '.join(client.organizations)}")
    print("The secret is shown only now and stored only as a hash: keep it somewhere safe.")


def client_json(client: ClientRecord) -> dict[str, Any]:
    """A client as ``--json`` prints it. The REST API has no such document; the names are
    OAuth's (``client_id``, ``client_secret``), as the token endpoint takes them."""
    return {
        "client_id": client.client_id,
        "tenant": client.tenant,
        "name": client.name,
        "organizations": list(client.organizations),
        "enabled": client.enabled,
        "created_at": client.created_at.isoformat(),
        "last_used_at": client.last_used_at.isoformat() if client.last_used_at else None,
        "revoked_at": client.revoked_at.isoformat() if client.revoked_at else None,
        "requests_per_minute": client.requests_per_minute,
        "characters_per_minute": client.characters_per_minute,
    }
