"""``threadwise aspects``: the summary aspects an organization defines itself."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from threadwise.cli.arguments import Commands, organization_and_tenant
from threadwise.cli.output import print_json, progress
from threadwise.cli.stores import organization_policies
from threadwise.config import Settings
from threadwise.organizations.aspects import CustomAspect


def add_commands(commands: Commands) -> None:
    aspects = commands.add_parser("aspects", help="an organization's custom summary aspects")
    aspect_commands = aspects.add_subparsers(dest="aspects_command", required=True)

    put = aspect_commands.add_parser(
        "put", help="add a custom aspect, or replace the one of that name"
    )
    organization_and_tenant(put)
    put.add_argument("name", metavar="NAME", help="a letter, then letters, digits, '_' or '-'")
    put.add_argument("--instruction", required=True, help="what to write, in a sentence or two")
    put.add_argument(
        "--example-conversation",
        required=True,
        metavar="FILE_OR_TEXT",
        help="a short transcript ('Name: text' lines): a file, the text itself, or '-' "
        "for standard input",
    )
    put.add_argument("--example-answer", required=True, help="what the aspect says for the example")
    put.set_defaults(run=_put)

    remove = aspect_commands.add_parser("remove", help="remove a custom aspect")
    organization_and_tenant(remove)
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(run=_remove)

    listing = aspect_commands.add_parser("list", help="an organization's custom aspects")
    organization_and_tenant(listing)
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_list)


def _put(args: argparse.Namespace, settings: Settings) -> int:
    aspect = CustomAspect(
        args.name, args.instruction, _text_or_file(args.example_conversation), args.example_answer
    )
    with organization_policies(settings) as policies:
        try:
            policies.put_aspect(args.tenant, args.organization, aspect)
        except ValueError as exc:
            progress(str(exc))
            return 2
    print(f"saved aspect {aspect.name.strip()} of organization {args.organization}")
    return 0


def _remove(args: argparse.Namespace, settings: Settings) -> int:
    with organization_policies(settings) as policies:
        try:
            removed = policies.remove_aspect(args.tenant, args.organization, args.name)
        except ValueError as exc:
            progress(str(exc))
            return 2
    if not removed:
        progress(
            f"organization {args.organization} has no aspect {args.name!r}; "
            f"`threadwise aspects list {args.organization}` shows its aspects"
        )
        return 1
    print(f"removed aspect {args.name} of organization {args.organization}")
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    with organization_policies(settings) as policies:
        try:
            policy = policies.policy(args.tenant, args.organization)
        except ValueError as exc:
            progress(str(exc))
            return 2
    if args.json:
        print_json([aspect_json(aspect) for aspect in policy.custom_aspects])
        return 0
    if not policy.custom_aspects:
        print(
            f"organization {args.organization} has no custom aspects; "
            "`threadwise aspects put ORG NAME` adds one"
        )
        return 0
    print_aspects(policy.custom_aspects)
    return 0


def _text_or_file(value: str) -> str:
    """``value``, or the contents of the file it names ('-': standard input)."""
    if value == "-":
        return sys.stdin.read()
    try:
        is_file = Path(value).is_file()
    except (OSError, ValueError):  # a text too long, or with a NUL, to be a file name
        is_file = False
    return Path(value).read_text(encoding="utf-8") if is_file else value


def print_aspects(aspects: tuple[CustomAspect, ...]) -> None:
    for aspect in aspects:
        print(f"  {aspect.name}")
        print(f"    instruction  {aspect.instruction}")
        print("    example conversation")
        for line in aspect.example_conversation.splitlines():
            print(f"      {line}")
        print(f"    example answer  {aspect.example_answer}")


def aspect_json(aspect: CustomAspect) -> dict[str, str]:
    """An aspect as ``--json`` prints it; the REST API has no such document."""
    return {
        "name": aspect.name,
        "instruction": aspect.instruction,
        "example_conversation": aspect.example_conversation,
        "example_answer": aspect.example_answer,
    }
