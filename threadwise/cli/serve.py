"""``threadwise serve``: run the HTTP service, first creating a client for local use."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from threadwise.auth.clients import ClientSecret
from threadwise.auth.first_run import ensure_first_run_client
from threadwise.cli.arguments import Commands
from threadwise.cli.output import progress
from threadwise.cli.worker_process import WorkerProcess, worker_command
from threadwise.config import ConfigurationError, Settings
from threadwise.db.database import database_url
from threadwise.jobs.queue import shared

EXAMPLE_REQUEST = Path("examples") / "summarize-request.json"


def add_commands(commands: Commands) -> None:
    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8000)")
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.api.app import create_app
    from threadwise.api.server import build_server
    from threadwise.services import build_services

    worker = None
    if jobs_worker(settings) == "process":
        # The jobs run in a worker of their own, at a lower priority: requests go first.
        metrics_file = settings.data_dir / "worker-metrics.prom"
        metrics_file.unlink(missing_ok=True)  # a stopped worker's counts are not this one's
        environment = os.environ | {"THREADWISE_JOBS_WORKER_METRICS_FILE": str(metrics_file)}
        worker = WorkerProcess(
            worker_command(settings.jobs_worker_nice),
            environment,
            grace_seconds=settings.shutdown_grace_seconds,
        )
        settings = settings.model_copy(
            update={"jobs_worker": "external", "jobs_worker_metrics_file": metrics_file}
        )
    services = build_services(settings, progress)
    host = args.host or settings.host
    port = args.port or settings.port
    first_client = ensure_first_run_client(services.auth.clients, settings)
    if first_client is not None:
        print(first_run_instructions(first_client, host, port, settings.base_domain), flush=True)
    progress(f"serving on http://{host}:{port} (model loads in the background; see /readyz)")
    app = create_app(services.serving_context(), start=services.start, close=services.close)
    if worker is not None:
        worker.start()
        services.lifecycle.on_shutdown(worker.on_drain)
    try:
        build_server(app, settings, host, port).run()
    finally:
        if worker is not None:
            worker.stop()
    return 0


def jobs_worker(settings: Settings) -> str:
    """Where this server's jobs run: ``auto`` is a worker process with PostgreSQL (a queue
    it can share), the server's own process with SQLite."""
    apart = shared(database_url(settings))
    if settings.jobs_worker == "auto":
        return "process" if apart else "inline"
    if settings.jobs_worker in ("process", "external") and not apart:
        raise ConfigurationError(
            f"THREADWISE_JOBS_WORKER={settings.jobs_worker} needs PostgreSQL "
            "(THREADWISE_DATABASE_URL): with the SQLite default the jobs' queue lives in the "
            "server's process. Leave it unset (auto) or set it to inline."
        )
    return settings.jobs_worker


def first_run_instructions(
    credentials: ClientSecret, host: str, port: int, base_domain: str | None
) -> str:
    """What to tell a new user: the development client, and a curl that uses it."""
    client = credentials.client
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    base = f"http://{local}:{port}"
    host_header = f" -H 'Host: {client.tenant}.{base_domain}'" if base_domain else ""
    basic = shlex.quote(f"{client.client_id}:{credentials.client_secret}")
    extract = "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"access_token\"])'"
    return "\n".join(
        [
            "",
            "threadwise: no client was registered, so this one was created for local use.",
            "Its secret is shown only now; `threadwise clients rotate "
            f"{client.client_id}` makes a new one.",
            f"  client_id      {client.client_id}",
            f"  client_secret  {credentials.client_secret}",
            f"  organizations  {', '.join(client.organizations)} (tenant {client.tenant})",
            "Fetch a token and summarize the README's example:",
            "",
            f"TOKEN=$(curl -s -u {basic} -d grant_type=client_credentials{host_header} "
            f"{base}/auth/oauth2/token | {extract})",
            f'curl -s {base}/message/summarize{host_header} -H "Authorization: Bearer $TOKEN" '
            f"-H 'Content-Type: application/json' -d @{shlex.quote(str(_example_request()))}",
            "",
        ]
    )


def _example_request() -> Path:
    """The README's example request: here, or in the source tree threadwise runs from."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (root / EXAMPLE_REQUEST).is_file():
            return (root / EXAMPLE_REQUEST).resolve()
    return EXAMPLE_REQUEST
