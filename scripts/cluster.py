"""threadwise as it runs in production, on loopback: one model server, two or more replicas
using it, PostgreSQL and Redis shared by them, and HAProxy in front with deploy/haproxy.cfg.

    make cluster                                   # 2 replicas, the default model
    scripts/with-services.sh .venv/bin/python -m scripts.cluster --replicas 3 --port 8080

``make cluster`` runs it beside a throwaway PostgreSQL and Redis (scripts/with-services.sh):
it prints the balancer's URL and a client's id and secret, serves until Ctrl-C (or SIGTERM),
then stops everything and removes its state. The tests of tests/cluster and bench/cluster.py
use ``Cluster`` itself: they stop, kill and restart replicas under load.

- The model server is llama-cpp-python's OpenAI-compatible server with a packaged model
  (scripts/model_server.py); each replica sends it at most ``THREADWISE_LLM_CONCURRENCY``
  requests (1: that server runs one at a time), and what waits stays in the replica's queue.
- Replicas share the database (clients, tenants, audit), Redis (rate limits, idempotency keys,
  result cache, thread memory) and the token-signing secret; each has its own data directory
  and its own fast-tier engines (Apertium, Bergamot).
- HAProxy runs deploy/haproxy.cfg unchanged but for its ``server`` lines (one per replica)
  and a stats socket, through which ``Cluster`` waits until the balancer sees a replica up.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import httpx2
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from scripts.model_server import ALIAS, SMALL_MODEL, free_port, llama_server
from threadwise.auth.first_run import FIRST_RUN_ORGANIZATIONS
from threadwise.config import Settings
from threadwise.engines.model_files import DEFAULT_MODEL, prepare_model

ROOT = Path(__file__).resolve().parents[1]
HAPROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
# The servers of scripts/with-services.sh.
POSTGRES_VARIABLE = "THREADWISE_TEST_POSTGRES_URL"
REDIS_VARIABLE = "THREADWISE_TEST_REDIS_URL"
READY_SECONDS = 300.0
MODELS = {"default": (DEFAULT_MODEL, "qwen2.5-coder-1.5b-instruct"), "small": (SMALL_MODEL, ALIAS)}


@dataclass(frozen=True)
class Client:
    organization: str
    client_id: str
    client_secret: str


@dataclass
class Replica:
    """``threadwise serve`` on its own port and data directory."""

    name: str
    port: int
    data_dir: Path
    environment: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.data_dir / "server.log"

    def start(self) -> None:
        self.starts += 1
        with self.log.open("ab") as output:
            output.write(f"--- start {self.starts}\n".encode())
            output.flush()
            self.process = subprocess.Popen(
                [_threadwise(), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.environment,
                stdout=output,
                stderr=subprocess.STDOUT,
                # A terminal's Ctrl-C reaches the cluster, which stops replicas in order.
                start_new_session=True,
            )

    def wait_ready(self, seconds: float = READY_SECONDS) -> None:
        wait_for(f"{self.url}/readyz", seconds, self.process, self.log)

    def signal(self, number: signal.Signals, *, whole: bool = False) -> None:
        """``number`` to the server; ``whole``: to its job worker too (its process group),
        as when the replica's machine is stopped or killed."""
        assert self.process is not None
        if whole:
            os.killpg(self.process.pid, number)  # a session of its own: the group is its pid
        else:
            self.process.send_signal(number)

    def wait(self, seconds: float) -> int:
        assert self.process is not None
        return self.process.wait(seconds)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, seconds: float = 60.0) -> int | None:
        """SIGTERM and its exit status; killed (None) if it does not end in ``seconds``."""
        if not self.running:
            return None
        self.signal(signal.SIGTERM)
        try:
            return self.wait(seconds)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL, whole=True)
            self.wait(10)
            return None


@dataclass
class Cluster:
    """Started by ``running_cluster``; ``url`` is the balancer's."""

    state: Path
    url: str
    model_url: str
    database_url: str
    redis_url: str
    replicas: list[Replica]
    stats_socket: Path
    environment: dict[str, str]

    def create_client(
        self,
        organization: str,
        requests_per_minute: int = 1_000_000,
        characters_per_minute: int = 1_000_000_000,
    ) -> Client:
        """A client of ``organization`` with its own per-organization limits."""
        created = subprocess.run(
            [_threadwise(), "clients", "create", "--org", organization, "--json",
             "--requests-per-minute", str(requests_per_minute),
             "--characters-per-minute", str(characters_per_minute)],
            env=self.environment, capture_output=True, check=True, text=True,
        )  # fmt: skip
        answer = json.loads(created.stdout)
        return Client(organization, answer["client_id"], answer["client_secret"])

    def token(self, client: Client) -> str:
        response = httpx2.post(
            f"{self.url}/auth/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(client.client_id, client.client_secret),
            timeout=30,
        )
        response.raise_for_status()
        token: str = response.json()["access_token"]
        return token

    def balancer(self, command: str) -> str:
        """HAProxy's answer to an admin command ("show stat", "disable server replicas/r2")."""
        with socket.socket(socket.AF_UNIX) as admin:
            admin.connect(str(self.stats_socket))
            admin.sendall(command.encode() + b"\n")
            data = b""
            while chunk := admin.recv(65536):
                data += chunk
        return data.decode()

    def balancer_states(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it (UP, DOWN, DOWN 1/2…)."""
        header, *rows = self.balancer("show stat").splitlines()
        columns = header.lstrip("# ").split(",")
        states = {}
        for row in rows:
            values = dict(zip(columns, row.split(","), strict=False))
            if values.get("pxname") == "replicas" and values.get("svname", "").startswith("r"):
                states[values["svname"]] = values["status"]
        return states

    def wait_balanced(self, up: int | None = None, seconds: float = 60.0) -> None:
        """Until the balancer sees ``up`` replicas (default: every running one) up."""
        want = up if up is not None else sum(r.running for r in self.replicas)
        deadline = time.monotonic() + seconds
        while True:
            states = self.balancer_states()
            if sum(state == "UP" for state in states.values()) == want:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the balancer sees {states}, not {want} replicas up")
            time.sleep(0.2)

    def restart(self, replica: Replica) -> None:
        """Start a stopped replica again and wait until the balancer sends it requests."""
        assert not replica.running
        replica.start()
        replica.wait_ready()
        self.wait_balanced()


@contextmanager
def running_cluster(
    state: Path,
    *,
    replicas: int = 2,
    model: str = "default",
    port: int | None = None,
    postgres_url: str | None = None,
    redis_url: str | None = None,
    settings: dict[str, str] | None = None,
    model_nice: int = 0,
) -> Iterator[Cluster]:
    """Start everything (PostgreSQL and Redis are the ones at these URLs, by default those
    of scripts/with-services.sh: a database of the cluster's own is created there, and
    dropped after); stop everything on the way out."""
    if replicas < 1:
        raise ValueError("a cluster needs a replica")
    packaged, alias = MODELS[model]
    postgres_url = postgres_url or _required(POSTGRES_VARIABLE)
    redis_url = redis_url or _required(REDIS_VARIABLE)
    with ExitStack() as stack:
        database_url = stack.enter_context(fresh_database(postgres_url))
        model_path = prepare_model(packaged, Settings().model_dir)
        model_url = stack.enter_context(
            llama_server(
                model_path,
                state / "model-server.log",
                alias=alias,
                cache_bytes=256 << 20,
                nice=model_nice,
            )
        )
        environment = {
            **os.environ,
            "THREADWISE_DATABASE_URL": database_url,
            "THREADWISE_REDIS_URL": redis_url,
            "THREADWISE_JWT_SECRET": secrets.token_urlsafe(32),
            "THREADWISE_PRODUCTION": "true",
            "THREADWISE_LLM_URL": model_url,
            "THREADWISE_LLM_MODEL": alias,
            "THREADWISE_LLM_SERVER": "llama-cpp-python",
            "THREADWISE_LLM_CONCURRENCY": "1",
            # HAProxy, on this machine, is the replicas' proxy (as in deploy/compose.yaml).
            "THREADWISE_FORWARDED_ALLOW_IPS": "127.0.0.1",
            "THREADWISE_DATA_DIR": str(state / "cli"),
            "PYTHONUNBUFFERED": "1",
            **(settings or {}),
        }
        subprocess.run([_threadwise(), "migrate"], env=environment, check=True, capture_output=True)
        members = []
        for n in range(1, replicas + 1):
            data_dir = state / f"replica-{n}"
            data_dir.mkdir(parents=True, exist_ok=True)
            members.append(
                Replica(
                    f"r{n}",
                    free_port(),
                    data_dir,
                    {**environment, "THREADWISE_DATA_DIR": str(data_dir)},
                )
            )
        for replica in members:
            replica.start()
            stack.callback(replica.stop)
        for replica in members:
            replica.wait_ready()
        url, stats_socket = stack.enter_context(_haproxy(state, members, port))
        cluster = Cluster(
            state, url, model_url, database_url, redis_url, members, stats_socket, environment
        )
        cluster.wait_balanced()
        yield cluster


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A fresh database on the PostgreSQL server at ``server_url``; dropped after."""
    server = make_url(server_url)
    if server.drivername in ("postgresql", "postgres"):
        server = server.set(drivername="postgresql+psycopg")
    name = f"threadwise_{secrets.token_hex(4)}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def _haproxy(state: Path, replicas: list[Replica], port: int | None) -> Iterator[tuple[str, Path]]:
    """HAProxy with deploy/haproxy.cfg, its server lines replaced by the replicas'."""
    binary = find_haproxy()
    if binary is None:
        raise RuntimeError("HAProxy is missing: scripts/with-services.sh installs it (as root)")
    stats_socket = state / "haproxy.sock"
    lines: list[str] = []
    for line in HAPROXY_CONFIG.read_text().splitlines():
        if line.strip().startswith("server threadwise-"):
            if not any(x.strip().startswith("server r") for x in lines):
                lines += [f"    server {r.name} 127.0.0.1:{r.port}" for r in replicas]
            continue
        lines.append(line)
        if line.startswith("global"):
            lines.append(f"    stats socket {stats_socket} mode 600 level admin")
    config = state / "haproxy.cfg"
    config.write_text("\n".join(lines) + "\n")
    port = port or free_port()
    environment = {**os.environ, "BALANCER_BIND": f"127.0.0.1:{port}"}
    url = f"http://127.0.0.1:{port}"
    with (state / "haproxy.log").open("ab") as output:
        process = subprocess.Popen(
            [binary, "-db", "-f", str(config)],
            env=environment,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    try:
        wait_for(f"{url}/balancer/readyz", 30, process, state / "haproxy.log")
        yield url, stats_socket
    finally:
        process.terminate()
        process.wait(10)


def find_haproxy() -> str | None:
    """Debian installs HAProxy in /usr/sbin, outside a user's PATH."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def wait_for(url: str, seconds: float, process: subprocess.Popen[bytes] | None, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}:\n{tail}")
        try:
            if httpx2.get(url, timeout=2).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer 200 within {seconds:g} s (log: {log})")
        time.sleep(0.2)


def _required(variable: str) -> str:
    url = os.environ.get(variable)
    if not url:
        raise RuntimeError(
            f"{variable} is not set: run through scripts/with-services.sh (make cluster does)"
        )
    return url


def _threadwise() -> str:
    return str(Path(sys.executable).with_name("threadwise"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, default=8000, help="the balancer's (default 8000)")
    parser.add_argument(
        "--model", choices=sorted(MODELS), default="default",
        help="the packaged model the model server runs ('small': the 0.5B one)",
    )  # fmt: skip
    parser.add_argument(
        "--org", default=FIRST_RUN_ORGANIZATIONS[0],
        help="the organization of the client it creates (default: the README example's)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    stop = threading.Event()

    def stopping(number: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    state = Path(tempfile.mkdtemp(prefix="threadwise-cluster-"))
    print(f"cluster: starting (state and logs in {state})", flush=True)
    try:
        with running_cluster(
            state, replicas=args.replicas, model=args.model, port=args.port
        ) as cluster:
            client = cluster.create_client(args.org)
            print(
                f"cluster: {args.replicas} replicas behind {cluster.url} (REST and WebSocket),"
                f" model server {cluster.model_url}\n"
                f"  client id     {client.client_id}\n"
                f"  client secret {client.client_secret}\n"
                f"  organization  {client.organization}\n"
                "Try it from another terminal:\n"
                f"  TOKEN=$(curl -s -u '{client.client_id}:{client.client_secret}' -d "
                f"grant_type=client_credentials {cluster.url}/auth/oauth2/token | python3 -c "
                "'import json,sys; print(json.load(sys.stdin)[\"access_token\"])')\n"
                f'  curl -s {cluster.url}/message/summarize -H "Authorization: Bearer $TOKEN" '
                "-H 'Content-Type: application/json' -d @examples/summarize-request.json\n"
                "Ctrl-C stops everything.",
                flush=True,
            )
            stop.wait()
            print("cluster: stopping", flush=True)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
