"""``threadwise --url URL jobs list|show|cancel``: a running server's asynchronous jobs, read
and cancelled with the client (``threadwise.client.command``)."""

from __future__ import annotations

import argparse

from threadwise.cli.arguments import Commands
from threadwise.cli.output import progress
from threadwise.client.command import add_jobs_commands, run_jobs
from threadwise.config import Settings


def add_commands(commands: Commands) -> None:
    jobs = commands.add_parser(
        "jobs", help="the asynchronous jobs of the server of --url: list, show or cancel them"
    )
    add_jobs_commands(jobs)
    jobs.set_defaults(run=_jobs)


def _jobs(args: argparse.Namespace, settings: Settings) -> int:
    if not args.url:
        progress("jobs are a running server's: give --url URL (and its credentials)")
        return 2
    return run_jobs(args)
