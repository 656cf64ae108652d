"""The ``threadwise`` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

from threadwise import INTERFACE_VERSION, __version__
from threadwise.config import Settings
from threadwise.deadlines import Deadline
from threadwise.engines.model_files import DEFAULT_MODEL, ModelFileError, prepare_model
from threadwise.errors import ServiceError
from threadwise.payload import parse_message_body


def _progress(message: str) -> None:
    print(f"threadwise: {message}", file=sys.stderr, flush=True)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from threadwise.api.app import create_app
    from threadwise.services import build_services

    services = build_services(settings, _progress)
    host = args.host or settings.host
    port = args.port or settings.port
    _progress(f"serving on http://{host}:{port} (model loads in the background; see /readyz)")
    uvicorn.run(create_app(services), host=host, port=port, log_level="info")
    return 0


def _read_body(file: str, request_settings: dict[str, Any]) -> Any:
    """The request body in ``file`` ('-': standard input), with ``request_settings`` set;
    None (after saying why) if it is not JSON."""
    text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        _progress(f"{file} is not valid JSON: {exc}")
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
    services = build_services(settings, _progress)
    try:
        body = parse_message_body(data, services.limits)
        job = services.summarizer.plan(body)
        summary = services.summarizer.run(job, Deadline(settings.request_timeout_seconds))
    except ServiceError as exc:
        _progress(f"{exc.code.value}: {exc.message}")
        return 2 if exc.code.http_status < 500 else 1
    print(summary.text)
    return 0


def _translate(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.protocol import results_envelope
    from threadwise.services import build_services

    data = _read_body(args.file, {"targetLanguages": args.to, "translationMode": args.mode})
    if data is None:
        return 2
    services = build_services(settings, _progress)
    try:
        body = parse_message_body(data, services.limits)
        results = asyncio.run(services.translate(body))
    except ServiceError as exc:
        _progress(f"{exc.code.value}: {exc.message}")
        return 2 if exc.code.http_status < 500 else 1
    finally:
        services.close()
    envelope = results_envelope("translate", results, body.request)
    print(json.dumps(envelope.to_wire(), ensure_ascii=False, indent=2))
    return 0


def _prepare_model(_: argparse.Namespace, settings: Settings) -> int:
    if settings.llm_model_path is not None:
        _progress(f"using THREADWISE_LLM_MODEL_PATH={settings.llm_model_path}")
        return 0 if settings.llm_model_path.is_file() else 1
    path = prepare_model(DEFAULT_MODEL, settings.model_dir, _progress)
    _progress(f"model ready and verified: {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="threadwise", description="Summarize and translate conversation histories."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"threadwise {__version__} (interface {INTERFACE_VERSION})",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8000)")
    serve.set_defaults(run=_serve)

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

    model = commands.add_parser("prepare-model", help="join and verify the default model")
    model.set_defaults(run=_prepare_model)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        code: int = args.run(args, Settings())
    except ModelFileError as exc:
        _progress(f"model unavailable: {exc}")
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
