"""The ``threadwise`` command: ``build_parser`` gathers each command group's subcommands,
``main`` runs one and turns the errors every group may meet into a line and an exit code."""

from __future__ import annotations

import argparse
import logging.config

from threadwise import INTERFACE_VERSION, __version__
from threadwise.auth.clients import UnknownClientError
from threadwise.cli import (
    api_keys,
    aspects,
    clients,
    glossaries,
    jobs,
    keys,
    local,
    maintenance,
    organizations,
    serve,
    usage,
    webhooks,
    worker,
)
from threadwise.cli.output import progress
from threadwise.client.command import add_connection_options
from threadwise.config import ConfigurationError, load_settings
from threadwise.engines.model_files import ModelFileError
from threadwise.logs import log_config
from threadwise.organizations.glossary_rows import UnknownGlossaryError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="threadwise",
        description="Summarize and translate conversation histories.",
        # Its --client-id must not swallow a command's --client ("api-keys create --client").
        allow_abbrev=False,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"threadwise {__version__} (interface {INTERFACE_VERSION})",
    )
    add_connection_options(
        parser,
        url_help="a running server for summarize and translate to call (with the credentials "
        "below) instead of answering here",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    # In the order `threadwise --help` lists them.
    for group in (
        serve,
        worker,
        local,
        maintenance,
        clients,
        api_keys,
        organizations,
        aspects,
        glossaries,
        usage,
        jobs,
        webhooks,
        keys,
    ):
        group.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.config.dictConfig(log_config())
    try:
        code: int = args.run(args, load_settings())
    except ModelFileError as exc:
        progress(f"model unavailable: {exc}")
        return 1
    except ConfigurationError as exc:
        progress(f"configuration: {exc}")
        return 2
    except UnknownClientError as exc:
        progress(str(exc))
        return 1
    except UnknownGlossaryError as exc:
        progress(f"{exc} `threadwise glossaries list ORG` lists an organization's glossaries.")
        return 1
    return code
