"""``threadwise summarize`` and ``threadwise translate``: answer a request body here, without
the service, as the API would."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from threadwise.cli.arguments import Commands
from threadwise.cli.output import print_json, progress
from threadwise.config import Settings
from threadwise.errors import ServiceError
from threadwise.payload import decode_json, parse_message_body


def add_commands(commands: Commands) -> None:
    summarize = commands.add_parser(
        "summarize", help="summarize a request-body JSON file locally and print the summary"
    )
    summarize.add_argument("file", help="a request body as JSON; '-' reads standard input")
    summarize.add_argument("--language", help="output language tag, e.g. es-ES")
    summarize.add_argument("--format", choices=["paragraph", "bullets", "structured"])
    summarize.set_defaults(run=_summarize)

    translate = commands.add_parser(
        "translate",
        help="translate the messages of a request-body JSON file locally; prints the envelope",
    )
    translate.add_argument("file", help="a request body as JSON; '-' reads standard input")
    translate.add_argument(
        "--to",
        action="append",
        metavar="LANGUAGE",
        help="target language tag, e.g. es or pt-BR; repeat for several",
    )
    translate.add_argument("--mode", choices=["quality", "fast"], help="engine tier")
    translate.set_defaults(run=_translate)


def _read_body(file: str, request_settings: dict[str, Any]) -> Any:
    """The request body in ``file`` ('-': standard input), with ``request_settings`` set;
    None (after saying why) if it is not JSON."""
    raw: str | bytes = sys.stdin.read() if file == "-" else Path(file).read_bytes()
    try:
        data = decode_json(raw, file, "Give a request body as the API takes it.")
    except ServiceError as exc:
        progress(exc.message)
        return None
    if isinstance(data, dict) and isinstance(data.get("request"), dict):
        current = data["request"].setdefault("settings", {})
        if isinstance(current, dict):
            current.update({k: v for k, v in request_settings.items() if v})
    return data


def _summarize(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.services import build_services

    data = _read_body(
        args.file, {"overrideOutputLanguage": args.language, "summaryFormat": args.format}
    )
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
    from threadwise.protocol import results_envelope
    from threadwise.services import build_services

    data = _read_body(args.file, {"targetLanguages": args.to, "translationMode": args.mode})
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
