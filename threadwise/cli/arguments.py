"""Arguments several command groups take alike."""

from __future__ import annotations

import argparse
from typing import Any

from threadwise.auth.tenancy import DEFAULT_TENANT

# argparse's type for what add_subparsers returns is private.
Commands = Any


def organization_and_tenant(command: argparse.ArgumentParser) -> None:
    command.add_argument("organization", metavar="ORG", help="the organizationId")
    command.add_argument("--tenant", default=DEFAULT_TENANT, help="default: %(default)s")
