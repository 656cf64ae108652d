"""``threadwise api-keys``: static keys that act as a client, for clients that send one key
(DeepL's and LibreTranslate's clients, scripts) instead of fetching tokens."""

from __future__ import annotations

import argparse
from typing import Any

from threadwise.auth.api_keys import ApiKeyRecord, UnknownApiKeyError
from threadwise.cli.arguments import Commands
from threadwise.cli.output import print_json, print_table, progress
from threadwise.cli.stores import api_key_store
from threadwise.config import Settings


def add_commands(commands: Commands) -> None:
    keys = commands.add_parser("api-keys", help="manage the API keys that act as a client")
    key_commands = keys.add_subparsers(dest="api_keys_command", required=True)

    create = key_commands.add_parser(
        "create", help="create a key for a client; prints it once, alone on the last line"
    )
    create.add_argument(
        "--client", required=True, metavar="CLIENT_ID", help="the client it acts as"
    )
    create.add_argument("--name", help="a note saying where the key is used")
    create.set_defaults(run=_create)

    listing = key_commands.add_parser("list", help="show the keys (never the keys themselves)")
    listing.add_argument("--client", metavar="CLIENT_ID", help="only this client's keys")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_list)

    revoke = key_commands.add_parser("revoke", help="refuse a key from now on")
    revoke.add_argument("key_id", help="the id `threadwise api-keys list` shows")
    revoke.set_defaults(run=_revoke)


def _create(args: argparse.Namespace, settings: Settings) -> int:
    with api_key_store(settings) as store:
        try:
            created = store.create(args.client, args.name or "")
        except ValueError as exc:  # a revoked client
            progress(str(exc))
            return 2
    record = created.record
    print(f"created API key {record.key_id} for client {record.client_id}")
    print("It is shown only now and stored only as a hash: keep it somewhere safe.")
    print(created.key)
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    with api_key_store(settings) as store:
        keys = store.list(args.client)
    if args.json:
        print_json([api_key_json(key) for key in keys])
        return 0
    if not keys:
        print("no API keys; `threadwise api-keys create --client CLIENT_ID` creates one")
        return 0
    rows = [["KEY ID", "CLIENT ID", "STATE", "CREATED", "LAST USED", "NAME"]]
    for key in keys:
        rows.append(
            [
                key.key_id,
                key.client_id,
                "revoked" if key.revoked_at else "active",
                f"{key.created_at:%Y-%m-%d %H:%M}",
                f"{key.last_used_at:%Y-%m-%d %H:%M}" if key.last_used_at else "never",
                key.name,
            ]
        )
    print_table(rows)
    return 0


def _revoke(args: argparse.Namespace, settings: Settings) -> int:
    with api_key_store(settings) as store:
        try:
            key = store.revoke(args.key_id)
        except UnknownApiKeyError as exc:
            progress(str(exc))
            return 1
    print(
        f"revoked API key {key.key_id}: refused from now on "
        f"(by every replica within {settings.store_cache_seconds:g} s)"
    )
    return 0


def api_key_json(key: ApiKeyRecord) -> dict[str, Any]:
    """A key as ``--json`` prints it (never the key itself)."""
    return {
        "key_id": key.key_id,
        "client_id": key.client_id,
        "name": key.name,
        "created_at": key.created_at.isoformat(),
        "last_used_at": key.last_used_at.isoformat() if key.last_used_at else None,
        "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
    }
