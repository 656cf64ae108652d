"""Write the manual's reference pages from the code: ``python -m scripts.reference``.

Settings from ``Settings``, error codes from ``ErrorCode``, the CLI from its parser, the
Prometheus metrics from ``Metrics`` and the OpenAPI document from the app. The output depends
only on the code (never on the environment or the machine), and tests/test_docs.py checks that
the committed pages are what this writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin
from unittest import mock

import annotated_types
from prometheus_client.metrics import MetricWrapperBase
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo

from threadwise.api import asyncapi
from threadwise.cli import build_parser
from threadwise.config import ENV_PREFIX, Settings
from threadwise.metrics import Metrics
from threadwise.protocol import ErrorCode

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "reference"
REGENERATE = "python -m scripts.reference"
GENERATED = f"<!-- Written by `{REGENERATE}` from the code; edit the code, not this page. -->\n\n"

# What each code means and what the caller can do: the one part of the errors page that the
# code does not hold. A code missing here stops the generator (and so fails the docs test).
ERROR_MEANINGS: dict[ErrorCode, str] = {
    ErrorCode.INVALID_JSON: "The body or frame is not UTF-8 JSON, is nested more than 32 levels "
    "deep, has an integer of more than 4,300 digits, or `NaN`/`Infinity`.",
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: "A REST body that is not `application/json`.",
    ErrorCode.PAYLOAD_TOO_LARGE: "A body or frame over `max_body_bytes`, more than "
    "`max_conversations` conversations or `max_messages` messages, or a message over "
    "`max_message_chars` characters.",
    ErrorCode.REQUIRED_FIELDS_MISSING: "A required field is absent or empty; the message names "
    "its path.",
    ErrorCode.PAYLOAD_SCHEMA_MISMATCH: "A field of the wrong type or form (the message names its "
    "path and what it may be): also more than 10 `targetLanguages`, an unknown aspect or "
    "glossary, a bad date.",
    ErrorCode.MISSING_TARGET_LANGUAGE: "A translate request that names no output language.",
    ErrorCode.UNSUPPORTED_LANGUAGE: "A language no engine serves; the message lists the "
    "supported ones.",
    ErrorCode.UNKNOWN_ACTION: "An operation other than summarize or translate.",
    ErrorCode.NOT_FOUND: "No such path.",
    ErrorCode.METHOD_NOT_ALLOWED: "The path exists, not with this method (`Allow` says which).",
    ErrorCode.MISSING_TOKEN: "No bearer token (`WWW-Authenticate: Bearer`).",
    ErrorCode.INVALID_TOKEN: "A token that is malformed, badly signed, for another tenant, or "
    "of a revoked client.",
    ErrorCode.TOKEN_EXPIRED: "The token has expired: fetch a new one and send again.",
    ErrorCode.FORBIDDEN_ORGANIZATION: "`request.context.organizationId` is not one of the "
    "token's organizations.",
    ErrorCode.IDEMPOTENCY_KEY_REUSED: "An `Idempotency-Key` sent again with a different request.",
    ErrorCode.RATE_LIMITED: "The organization is over its requests or characters per minute; "
    "`Retry-After` says when to send again.",
    ErrorCode.QUOTA_EXCEEDED: "The organization's monthly characters are used up; the message "
    "gives the day they start again, `Retry-After` the seconds until then.",
    ErrorCode.OVERLOADED: "An engine's queue is full, the model server is busy or down, or the "
    "server is shutting down; nothing was started. `Retry-After` estimates the wait.",
    ErrorCode.REQUEST_TIMEOUT: "The work did not finish within the request's deadline.",
    ErrorCode.REQUEST_CANCELLED: "WebSocket only: the client cancelled the request, or its "
    "socket closed.",
    ErrorCode.PROCESSING_FAILED: "An engine failed, or organization data could not be read; the "
    "server goes on serving.",
}


def settings_page() -> str:
    """Every setting: its variable, type, default and description."""
    lines = [
        "# Settings",
        "",
        GENERATED.rstrip("\n"),
        "",
        "One settings object, `threadwise.config.Settings`, read from `THREADWISE_*` environment",
        "variables, or from a TOML file named by `THREADWISE_CONFIG_FILE` (keys as in the first",
        "column). The environment beats the file, which beats the defaults. A value that is wrong",
        "or out of range stops the command with one sentence naming its variable and the allowed",
        "range (exit 2). Values of type object or list are given as JSON in the environment.",
        "",
        "| setting | environment variable | type | default | description |",
        "|---|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        if not field.description:
            raise ValueError(f"Settings.{name} has no description; give its Field one")
        cells = [
            f"`{name}`",
            f"`{ENV_PREFIX}{name.upper()}`",
            _type_name(field.annotation) + _bounds(field),
            _default(field),
            field.description,
        ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def _type_name(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _type_name(args[0])
    if origin in (Union, types.UnionType):
        named = [_type_name(arg) for arg in args if arg is not type(None)]
        return " or ".join(named) + (", optional" if type(None) in args else "")
    if origin is Literal:
        return " or ".join(f"`{arg}`" for arg in args)
    if origin is dict:
        return "object"
    if origin is list:
        return "list"
    if isinstance(annotation, type) and issubclass(annotation, SecretStr):
        return "secret"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", Path: "path"}
    return simple.get(annotation, str(annotation))


def _bounds(field: FieldInfo) -> str:
    words = {
        annotated_types.Ge: ("≥", "ge"),
        annotated_types.Gt: (">", "gt"),
        annotated_types.Le: ("≤", "le"),
        annotated_types.Lt: ("<", "lt"),
    }
    parts = []
    for constraint in field.metadata:
        for kind, (sign, attribute) in words.items():
            if isinstance(constraint, kind):
                parts.append(f"{sign} {getattr(constraint, attribute)}")
    return f", {' and '.join(parts)}" if parts else ""


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        # Read from the machine (its CPUs, its user's directories): the description says how.
        return "from the machine"
    value = field.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str) and not value:
        return "empty"
    return f"`{json.dumps(value) if isinstance(value, dict | list) else value}`"


def _cell(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|")


def errors_page() -> str:
    """Every error code, its HTTP status, whether to retry, and what it means."""
    lines = [
        "# Error codes",
        "",
        GENERATED.rstrip("\n"),
        "",
        'Every failure is the response envelope with `state: "error"`, a top-level',
        "`error: {code, message, retryable}` and the HTTP status of its code (see",
        "[the envelope](../concepts/envelope.md)); over the WebSocket it is an error frame with",
        "the same fields. `retryable` says whether the same request may succeed if sent again; a",
        "`Retry-After` header (whole seconds, at least 1) comes with `RATE_LIMITED`,",
        "`QUOTA_EXCEEDED` and `OVERLOADED`. Only `POST /auth/oauth2/token` answers OAuth2's own",
        '`{"error", "error_description"}` instead.',
        "",
        "| code | HTTP status | retryable | meaning |",
        "|---|---|---|---|",
    ]
    for code in ErrorCode:
        meaning = ERROR_MEANINGS.get(code)
        if meaning is None:
            raise ValueError(f"ErrorCode.{code.name} has no meaning in scripts/reference.py")
        retryable = "yes" if code.retryable else "no"
        lines.append(f"| `{code.value}` | {code.http_status} | {retryable} | {_cell(meaning)} |")
    lines += [
        "",
        "`REQUEST_CANCELLED` is only ever a WebSocket frame; 499 is the status proxies log for a",
        "client that gave up.",
    ]
    return "\n".join(lines) + "\n"


def cli_page() -> str:
    """Every command of ``threadwise``, with its arguments, from the parser."""
    parser = build_parser()
    lines = [
        "# The `threadwise` command",
        "",
        GENERATED.rstrip("\n"),
        "",
        f"{parser.description} Installed as `.venv/bin/threadwise`; every command reads the",
        "[settings](settings.md), and `--help` after any command prints what this page says.",
    ]
    # `threadwise --url URL …`: what comes before the command (--help and --version aside).
    general = [
        a
        for a in parser._actions
        if a.option_strings
        and a.help != argparse.SUPPRESS
        and not isinstance(a, argparse._HelpAction | argparse._VersionAction)
    ]
    if general:
        lines += ["", "## Options before the command", ""]
        lines += ["| option | description |", "|---|---|"]
        for action in general:
            lines.append(f"| {_cell(_argument(action))} | {_cell(_argument_help(action))} |")
    for path, command, summary in _commands(parser, [parser.prog], ""):
        if _subcommands(command) is not None:
            continue
        lines += ["", f"## `{' '.join(path)}`", ""]
        if summary:
            lines += [summary[0].upper() + summary[1:] + ".", ""]
        arguments = [action for action in command._actions if action.help != argparse.SUPPRESS]
        arguments = [a for a in arguments if not isinstance(a, argparse._HelpAction)]
        if not arguments:
            lines.append("No arguments.")
            continue
        lines += ["| argument | description |", "|---|---|"]
        for action in arguments:
            lines.append(f"| {_cell(_argument(action))} | {_cell(_argument_help(action))} |")
    return "\n".join(lines) + "\n"


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[Any] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _commands(
    parser: argparse.ArgumentParser, path: list[str], summary: str
) -> Iterator[tuple[list[str], argparse.ArgumentParser, str]]:
    """Each command and subcommand, depth first, in the order the parser lists them."""
    yield path, parser, summary
    subcommands = _subcommands(parser)
    if subcommands is None:
        return
    helps = {choice.dest: choice.help or "" for choice in subcommands._choices_actions}
    for name, command in subcommands.choices.items():
        yield from _commands(command, [*path, name], helps.get(name, ""))


def _argument(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    takes_value = action.nargs != 0
    if action.choices is not None:
        value = "{" + ",".join(str(choice) for choice in action.choices) + "}"
    else:
        value = str(action.metavar or action.dest.upper())
    shown = ", ".join(
        f"`{option} {value}`" if takes_value else f"`{option}`" for option in action.option_strings
    )
    return shown + (" (required)" if action.required else "")


def _argument_help(action: argparse.Action) -> str:
    if isinstance(action, argparse._VersionAction):
        return "print the version and exit"
    if not action.help:
        return "one of the choices" if action.choices is not None else ""
    # As argparse expands it: "%(default)s" and the like name the action's own values.
    return action.help % {**vars(action), "prog": "threadwise"}


def metrics_page() -> str:
    """Every Prometheus metric the service exposes at ``/metrics``."""
    lines = [
        "# Metrics",
        "",
        GENERATED.rstrip("\n"),
        "",
        "`GET /metrics` answers in Prometheus' text format. It answers only this machine (a",
        "loopback address), or, with `THREADWISE_METRICS_TOKEN` set, only",
        "`Authorization: Bearer <that token>` from anywhere. Label values come only from the",
        "service's own vocabulary and from organizations a token was authorized for (the first",
        "100 by name, later ones as `(other)`). Scale on `threadwise_queue_depth`.",
        "",
        "| metric | type | labels | description |",
        "|---|---|---|---|",
    ]
    for metric in vars(Metrics()).values():
        if not isinstance(metric, MetricWrapperBase):
            continue
        (family,) = metric.describe()
        exposed = family.name + ("_total" if family.type == "counter" else "")
        # prometheus_client keeps the label names only on this attribute.
        labels = ", ".join(f"`{label}`" for label in metric._labelnames) or "none"
        lines.append(f"| `{exposed}` | {family.type} | {labels} | {_cell(family.documentation)} |")
    lines += [
        "",
        "A histogram is exposed as its `_bucket`, `_sum` and `_count` series.",
    ]
    return "\n".join(lines) + "\n"


def openapi_document() -> str:
    """The app's ``/openapi.json``, as the running service serves it."""
    from threadwise.api.app import create_app
    from threadwise.services import build_services

    # Only the routes shape the document. A model server that is never called spares building
    # the embedded model, and no THREADWISE_* variable of this shell may change the services.
    clean = {key: value for key, value in os.environ.items() if not key.startswith(ENV_PREFIX)}
    with tempfile.TemporaryDirectory() as data_dir, mock.patch.dict(os.environ, clean, clear=True):
        settings = Settings(data_dir=Path(data_dir), llm_url="http://127.0.0.1:9/v1")
        services = build_services(settings)
        try:
            document = create_app(services.serving_context()).openapi()
        finally:
            services.close()
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


PAGES: dict[str, Callable[[], str]] = {
    "settings.md": settings_page,
    "errors.md": errors_page,
    "cli.md": cli_page,
    "metrics.md": metrics_page,
    "openapi.json": openapi_document,
}


def main() -> int:
    REFERENCE.mkdir(parents=True, exist_ok=True)
    for name, page in PAGES.items():
        (REFERENCE / name).write_text(page(), encoding="utf-8")
        print(f"wrote docs/reference/{name}")
    # The WebSocket's document shares the request models: one command rewrites both.
    return asyncapi.main()


if __name__ == "__main__":
    sys.exit(main())
