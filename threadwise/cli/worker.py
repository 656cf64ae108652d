"""``threadwise worker``: run the asynchronous jobs and their webhooks in a process of their own.

``threadwise serve`` starts one beside itself (``THREADWISE_JOBS_WORKER=process``, the default
with PostgreSQL) at a lower CPU priority, so that on a busy machine a request takes the CPU from
job work at once; or run it apart (``external``) on machines of its own. It takes the jobs of
the queue every replica shares, and stops as the server does: running jobs end their part
within the shutdown grace, then go back to the queue.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import logging.config
import os
import signal
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from prometheus_client import start_http_server, write_to_textfile

from threadwise.cli.arguments import Commands
from threadwise.cli.output import progress
from threadwise.config import ConfigurationError, Settings
from threadwise.db.database import database_url
from threadwise.jobs.queue import shared
from threadwise.logs import log_config
from threadwise.metrics import Metrics

if TYPE_CHECKING:
    from threadwise.services import Services

log = logging.getLogger(__name__)

# How often the worker writes its metrics for the server's /metrics, and looks for its parent.
METRICS_SECONDS = 1.0


def add_commands(commands: Commands) -> None:
    worker = commands.add_parser(
        "worker", help="run the asynchronous jobs (`serve` starts one beside itself)"
    )
    worker.add_argument(
        "--nice", type=int, default=0, help="lower this process's CPU priority by so much"
    )
    worker.add_argument(
        "--metrics-port",
        type=int,
        help="serve the worker's Prometheus metrics on 127.0.0.1:PORT/metrics",
    )
    worker.add_argument(
        "--parent", type=int, help=argparse.SUPPRESS
    )  # the server that started it: the worker stops when it is gone
    worker.set_defaults(run=_work)


def _work(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.services import build_services

    if not shared(database_url(settings)):
        raise ConfigurationError(
            "threadwise worker takes its jobs from PostgreSQL's queue: set "
            "THREADWISE_DATABASE_URL to the servers' PostgreSQL (with the SQLite default the "
            "queue is the server's own, and `threadwise serve` runs the jobs itself)."
        )
    # Before any thread starts: Linux's niceness is each thread's, inherited by those it starts.
    if args.nice:
        os.nice(args.nice)
    logging.config.dictConfig(log_config(settings.log_level, settings.log_format))  # as serve's
    services = build_services(settings.model_copy(update={"jobs_worker": "inline"}), progress)
    if args.metrics_port:
        start_http_server(args.metrics_port, "127.0.0.1", registry=services.metrics.registry)
    services.start()
    try:
        asyncio.run(_run(services, settings.jobs_worker_metrics_file, args.parent))
    finally:
        services.close()
    return 0


async def _run(services: Services, metrics_file: Path | None, parent: int | None) -> None:
    loop = asyncio.get_running_loop()
    ended = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, ended.set)
    await services.jobs.start()
    progress("the job worker is running")
    watch = asyncio.create_task(_watch(ended, services.metrics, metrics_file, parent))
    try:
        await ended.wait()
        log.info("the job worker is stopping")
    finally:
        await services.jobs.stop()
        watch.cancel()
        with suppress(asyncio.CancelledError):
            await watch
        _write(services.metrics, metrics_file)


async def _watch(
    ended: asyncio.Event, metrics: Metrics, path: Path | None, parent: int | None
) -> None:
    """Every METRICS_SECONDS: write the metrics to ``path``, and end the worker if the
    server that started it (``parent``) is gone."""
    while True:
        _write(metrics, path)
        if parent is not None and os.getppid() != parent:
            log.warning("the server that started this worker is gone; stopping")
            ended.set()
        await asyncio.sleep(METRICS_SECONDS)


def _write(metrics: Metrics, path: Path | None) -> None:
    if path is None:
        return
    try:
        write_to_textfile(str(path), metrics.registry)  # whole: written aside, then renamed
    except OSError:
        log.exception("the worker's metrics could not be written to %s", path)
