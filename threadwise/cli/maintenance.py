"""``threadwise prepare-model``, ``doctor`` and ``migrate``: get a machine ready to serve."""

from __future__ import annotations

import argparse
import logging
import sys

from threadwise.cli.arguments import Commands
from threadwise.cli.output import progress
from threadwise.config import Settings
from threadwise.engines.model_files import DEFAULT_MODEL, prepare_model


def add_commands(commands: Commands) -> None:
    model = commands.add_parser("prepare-model", help="join and verify the default model")
    model.set_defaults(run=_prepare_model)

    doctor = commands.add_parser(
        "doctor", help="check every part the service needs; says what to do about each failure"
    )
    doctor.set_defaults(run=_doctor)

    migrate = commands.add_parser(
        "migrate", help="bring the database's schema up to date (`serve` also does at start-up)"
    )
    migrate.set_defaults(run=_migrate)


def _prepare_model(_: argparse.Namespace, settings: Settings) -> int:
    if settings.llm_model_path is not None:
        progress(f"using THREADWISE_LLM_MODEL_PATH={settings.llm_model_path}")
        return 0 if settings.llm_model_path.is_file() else 1
    path = prepare_model(DEFAULT_MODEL, settings.model_dir, progress)
    progress(f"model ready and verified: {path}")
    return 0


def _doctor(_: argparse.Namespace, settings: Settings) -> int:
    from threadwise.doctor import report, run_checks

    # The findings are the report; the engines' start-up lines would only interleave with it.
    logging.getLogger("threadwise").setLevel(logging.WARNING)
    return report(run_checks(settings), sys.stdout)


def _migrate(_: argparse.Namespace, settings: Settings) -> int:
    from threadwise.services import open_database

    open_database(settings).close()
    progress("database schema is up to date")
    return 0
