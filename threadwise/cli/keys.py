"""``threadwise keys rotate``: sign new tokens with a new locally generated key."""

from __future__ import annotations

import argparse

from threadwise.auth.keys import KEY_FILE_NAME, LocalKeyFile
from threadwise.cli.arguments import Commands
from threadwise.cli.output import progress
from threadwise.config import Settings


def add_commands(commands: Commands) -> None:
    keys = commands.add_parser("keys", help="the locally generated token-signing key")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    rotate_key = key_commands.add_parser("rotate", help="sign new tokens with a new key")
    rotate_key.set_defaults(run=_rotate)


def _rotate(_: argparse.Namespace, settings: Settings) -> int:
    if settings.jwt_secret is not None or settings.jwt_algorithm != "HS256" or settings.production:
        progress(
            "the signing key comes from the settings: rotate it there (put the new secret in "
            "THREADWISE_JWT_SECRET and the old one, with its kid and retired_at, in "
            "THREADWISE_JWT_RETIRED_KEYS until its tokens have expired)"
        )
        return 2
    key_file = LocalKeyFile(settings.data_dir / KEY_FILE_NAME, settings.access_token_seconds)
    kid = key_file.rotate()
    print(
        f"signing with new key {kid}; tokens of the old key work until they expire "
        f"(at most {settings.access_token_seconds} s). Restart the service to use it."
    )
    return 0
