"""``threadwise summarize`` and ``threadwise translate``: answer a request body here, without
the service, as the API would; or, with ``threadwise --url URL``, send it to a running server
with the client (``threadwise.client.command``)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from threadwise.cli.arguments import Commands
from threadwise.cli.output import print_json, progress
from threadwise.client.async_client import Superpower
from threadwise.client.command import (
    add_summarize_options,
    add_translate_options,
    request_body,
    submitted_as_job,
)
from threadwise.client.command import run as run_remote
from threadwise.config import Settings
from threadwise.errors import ServiceError
from threadwise.payload import decode_json, parse_message_body


def add_commands(commands: Commands) -> None:
    summarize = commands.add_parser(
        "summarize",
        help="summarize a request body (or a conversation) in a JSON file, here or with "
        "the server of --url; prints the summary (the envelope with --url)",
    )
    add_summarize_options(summarize)
    summarize.set_defaults(run=_summarize)

    translate = commands.add_parser(
        "translate",
        help="translate the messages of a request body (or a conversation) in a JSON file, "
        "here or with the server of --url; prints the envelope",
    )
    add_translate_options(translate)
    translate.set_defaults(run=_translate)


def _read_body(args: argparse.Namespace, action: Superpower) -> Any:
    """The request body in ``args.file`` ('-': standard input), with the options' settings;
    None (after saying why) if it is not one."""
    raw: str | bytes = sys.stdin.read() if args.file == "-" else Path(args.file).read_bytes()
    try:
        data = decode_json(raw, args.file, "Give a request body as the API takes it.")
        return request_body(action, data, args)
    except ServiceError as exc:
        progress(exc.message)
    except (ValueError, TypeError) as exc:
        progress(f"{args.file}: {exc}")
    return None


def _summarize(args: argparse.Namespace, settings: Settings) -> int:
    if args.url:
        return run_remote("summarize", args)
    if submitted_as_job(args):
        progress("--submit, --wait and --webhook make a job of a server: give --url URL")
        return 2
    from threadwise.services import build_services

    data = _read_body(args, "summarize")
    if data is None:
        return 2
    services = build_services(settings, progress)
    try:
        body = parse_message_body(data, services.limits)
        job = services.default_summarizer.plan(body)
        deadline = services.summarize.deadlines.start(len(job.transcript.text))
        summary = services.default_summarizer.run(job, deadline)
    except ServiceError as exc:
        progress(f"{exc.code.value}: {exc.message}")
        return 2 if exc.code.http_status < 500 else 1
    finally:
        services.close()
    print(summary.text)
    return 0


def _translate(args: argparse.Namespace, settings: Settings) -> int:
    if args.url:
        return run_remote("translate", args)
    if submitted_as_job(args):
        progress("--submit, --wait and --webhook make a job of a server: give --url URL")
        return 2
    from threadwise.protocol import results_envelope
    from threadwise.services import build_services

    data = _read_body(args, "translate")
    if data is None:
        return 2
    services = build_services(settings, progress)
    try:
        body = parse_message_body(data, services.limits)
        results = asyncio.run(services.translate(body))
    except ServiceError as exc:
        progress(f"{exc.code.value}: {exc.message}")
        return 2 if exc.code.http_status < 500 else 1
    finally:
        services.close()
    print_json(results_envelope("translate", results, body.request).to_wire())
    return 0
