"""``threadwise-client`` (and ``threadwise --url URL``): summarize or translate a JSON file
with a running server, printing the answer's envelope as JSON.

The file (``-``: standard input) is a request body as the API takes it, or a simple
conversation: ``{"messages": ["…", …]}``, a list of such conversations, or a list of texts
(then ``--org`` names the organization). Options set the request's settings either way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx2

from threadwise.client import bodies
from threadwise.client.async_client import Superpower, ThreadwiseClient
from threadwise.client.errors import ThreadwiseError
from threadwise.client.retry import is_transport_error

URL_VARIABLE = "THREADWISE_URL"
ORGANIZATION_VARIABLE = "THREADWISE_ORGANIZATION"


def add_connection_options(parser: argparse.ArgumentParser, *, url_help: str) -> None:
    """``--url`` and the credentials (else THREADWISE_API_KEY, or THREADWISE_CLIENT_ID and
    THREADWISE_CLIENT_SECRET)."""
    parser.add_argument("--url", help=url_help)
    parser.add_argument("--api-key", help="an API key (default: $THREADWISE_API_KEY)")
    parser.add_argument("--client-id", help="default: $THREADWISE_CLIENT_ID")
    parser.add_argument("--client-secret", help="default: $THREADWISE_CLIENT_SECRET")


def add_summarize_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("file", help="a request body or a conversation as JSON; '-': stdin")
    command.add_argument("--language", help="output language tag, e.g. es-ES")
    command.add_argument("--format", choices=["paragraph", "bullets", "structured"])
    command.add_argument(
        "--aspect", action="append", metavar="ASPECT", help="an aspect to answer; repeatable"
    )
    command.add_argument("--summary-mode", choices=["fast", "verified"])
    _organization(command)


def add_translate_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("file", help="a request body or a conversation as JSON; '-': stdin")
    command.add_argument(
        "--to",
        "--target",
        dest="to",
        action="append",
        metavar="LANGUAGE",
        help="target language tag, e.g. es or pt-BR; repeat for several",
    )
    command.add_argument("--mode", choices=["quality", "fast"], help="engine tier")
    command.add_argument("--glossary", metavar="GLOSSARY_ID", help="the glossary to apply")
    command.add_argument("--formality", choices=["default", "formal", "informal"])
    _organization(command)


def _organization(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--org",
        help=f"the organizationId, for a file that is not a request body (default: "
        f"${ORGANIZATION_VARIABLE})",
    )


def request_settings(action: Superpower, args: argparse.Namespace) -> dict[str, Any]:
    """The request settings the options set (None: left as the file has them)."""
    if action == "summarize":
        return bodies.summarize_settings(
            language=args.language,
            aspects=args.aspect,
            format=args.format,
            mode=args.summary_mode,
        )
    return {
        "targetLanguages": args.to,
        "translationMode": args.mode,
        "glossaryId": args.glossary,
        "formality": args.formality,
    }


def request_body(action: Superpower, data: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The body to send: ``data`` as given when it is a request body, else built around the
    conversation(s) or texts it holds; with the options' settings either way."""
    settings = {k: v for k, v in request_settings(action, args).items() if v is not None}
    if isinstance(data, dict) and isinstance(data.get("request"), dict):
        current = data["request"].setdefault("settings", {})
        if isinstance(current, dict):  # else the server says what is wrong with it
            current.update(settings)
        return data
    organization = args.org or os.environ.get(ORGANIZATION_VARIABLE)
    if not organization:
        raise ValueError(
            f"the file is not a request body, so give --org ORG (or set {ORGANIZATION_VARIABLE})"
        )
    if action == "summarize":
        conversations = bodies.conversations_wire(data)
    else:
        conversations = bodies.texts_or_conversations(data)
    return bodies.message_body(conversations, organization, settings)


def run(action: Superpower, args: argparse.Namespace) -> int:
    """Send the file's request to ``args.url``; print the envelope. Exit code 2 for a request
    the server refused as wrong, 1 for a failure."""
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
        body = request_body(action, json.loads(text), args)
    except (OSError, ValueError, TypeError) as exc:
        print(f"threadwise: {args.file}: {exc}", file=sys.stderr)
        return 2
    try:
        envelope = asyncio.run(_call(action, body, args))
    except ThreadwiseError as exc:
        print(f"threadwise: {exc.code}: {exc.message}", file=sys.stderr)
        return 2 if exc.status is not None and exc.status < 500 else 1
    except (httpx2.HTTPError, OSError) as exc:
        reason = "cannot reach" if is_transport_error(exc) else "failed calling"
        print(f"threadwise: {reason} {args.url}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(envelope, ensure_ascii=False, indent=2))
    return 0


async def _call(action: Superpower, body: dict[str, Any], args: argparse.Namespace) -> Any:
    async with ThreadwiseClient(
        args.url,
        api_key=args.api_key,
        client_id=args.client_id,
        client_secret=args.client_secret,
    ) as threadwise:
        return await threadwise.call(action, body)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="threadwise-client",
        description="Summarize and translate conversations with a running threadwise server.",
    )
    add_connection_options(parser, url_help=f"the server (default: ${URL_VARIABLE})")
    commands = parser.add_subparsers(dest="command", required=True)
    add_summarize_options(commands.add_parser("summarize", help="summarize a JSON file"))
    add_translate_options(commands.add_parser("translate", help="translate a JSON file"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.url = args.url or os.environ.get(URL_VARIABLE)
    if not args.url:
        print(f"threadwise-client: give --url URL (or set {URL_VARIABLE})", file=sys.stderr)
        return 2
    action: Superpower = args.command
    return run(action, args)


if __name__ == "__main__":
    sys.exit(main())
