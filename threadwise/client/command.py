"""``threadwise-client`` (and ``threadwise --url URL``): summarize or translate a JSON file
with a running server, printing the answer's envelope as JSON; or submit it as a job
(``--submit``), and list, show or cancel jobs (``jobs``).

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
from collections.abc import Coroutine
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
    _job_options(command)


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
    _job_options(command)


def _organization(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--org",
        help=f"the organizationId, for a file that is not a request body (default: "
        f"${ORGANIZATION_VARIABLE})",
    )


def _job_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--submit",
        "--async",
        dest="submit",
        action="store_true",
        help="submit it as a job (needs --url); prints the job, its jobId to read it later",
    )
    command.add_argument(
        "--wait",
        action="store_true",
        help="submit it as a job and wait for it; prints the envelope as without --submit",
    )
    command.add_argument(
        "--webhook", metavar="URL", help="where the server posts the job's end (implies --submit)"
    )


def submitted_as_job(args: argparse.Namespace) -> bool:
    """Whether the options ask for a job (``--submit``, ``--wait`` or ``--webhook``)."""
    return bool(args.submit or args.wait or args.webhook)


def add_jobs_commands(jobs: argparse.ArgumentParser) -> None:
    """``jobs list|show|cancel``, each printing what the API answers as JSON."""
    commands = jobs.add_subparsers(dest="jobs_command", required=True)
    listing = commands.add_parser("list", help="the jobs, newest first (without their results)")
    listing.add_argument(
        "--organization", "--org", metavar="ORG", help="default: every one you may act for"
    )
    listing.add_argument(
        "--status", choices=["queued", "running", "completed", "failed", "cancelled"]
    )
    listing.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most this many (%(default)s)"
    )
    show = commands.add_parser("show", help="a job, with its result once completed")
    cancel = commands.add_parser("cancel", help="cancel a queued or running job")
    for command in (show, cancel):
        command.add_argument("job_id", metavar="JOB_ID", help="as --submit printed it (jobId)")


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
    """Send the file's request to ``args.url`` (as a job, if the options say); print the
    envelope (or the job submitted)."""
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
        body = request_body(action, json.loads(text), args)
    except (OSError, ValueError, TypeError) as exc:
        print(f"threadwise: {args.file}: {exc}", file=sys.stderr)
        return 2
    return _answer(args, _call(action, body, args))


def run_jobs(args: argparse.Namespace) -> int:
    """``jobs list|show|cancel`` with the server of ``args.url``; print what it answers."""
    if args.jobs_command == "list" and args.limit < 1:
        print(f"threadwise: --limit must be at least 1, got {args.limit}", file=sys.stderr)
        return 2
    return _answer(args, _jobs(args))


def _answer(args: argparse.Namespace, call: Coroutine[Any, Any, Any]) -> int:
    """Print what ``call`` answers as JSON. Exit code 2 for a request the server refused as
    wrong, 1 for a failure (a failed job's too)."""
    try:
        answer = asyncio.run(call)
    except ThreadwiseError as exc:
        print(f"threadwise: {exc.code}: {exc.message}", file=sys.stderr)
        return 2 if exc.status is not None and exc.status < 500 else 1
    except (httpx2.HTTPError, OSError) as exc:
        reason = "cannot reach" if is_transport_error(exc) else "failed calling"
        print(f"threadwise: {reason} {args.url}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(answer, ensure_ascii=False, indent=2))
    return 0


def _client(args: argparse.Namespace) -> ThreadwiseClient:
    return ThreadwiseClient(
        args.url,
        api_key=args.api_key,
        client_id=args.client_id,
        client_secret=args.client_secret,
    )


async def _call(action: Superpower, body: dict[str, Any], args: argparse.Namespace) -> Any:
    async with _client(args) as threadwise:
        if not submitted_as_job(args):
            return await threadwise.call(action, body)
        handle = await threadwise.submit(action, body, webhook_url=args.webhook)
        if not args.wait:
            return handle.job.raw
        job = await handle.wait()
        job.result()  # raises the error of a job that failed or was cancelled
        return job.envelope


async def _jobs(args: argparse.Namespace) -> Any:
    async with _client(args) as threadwise:
        if args.jobs_command == "show":
            return (await threadwise.get_job(args.job_id)).raw
        if args.jobs_command == "cancel":
            return (await threadwise.cancel_job(args.job_id)).raw
        jobs: list[dict[str, Any]] = []
        # A page of what is asked (the API serves at most 100), pages followed up to it.
        listing = threadwise.list_jobs(args.organization, args.status, min(args.limit, 100))
        async for job in listing:
            jobs.append(job.raw)
            if len(jobs) == args.limit:
                break
        return {"jobs": jobs}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="threadwise-client",
        description="Summarize and translate conversations with a running threadwise server.",
    )
    add_connection_options(parser, url_help=f"the server (default: ${URL_VARIABLE})")
    commands = parser.add_subparsers(dest="command", required=True)
    add_summarize_options(commands.add_parser("summarize", help="summarize a JSON file"))
    add_translate_options(commands.add_parser("translate", help="translate a JSON file"))
    add_jobs_commands(commands.add_parser("jobs", help="list, show or cancel jobs"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.url = args.url or os.environ.get(URL_VARIABLE)
    if not args.url:
        print(f"threadwise-client: give --url URL (or set {URL_VARIABLE})", file=sys.stderr)
        return 2
    if args.command == "jobs":
        return run_jobs(args)
    action: Superpower = args.command
    return run(action, args)


if __name__ == "__main__":
    sys.exit(main())
