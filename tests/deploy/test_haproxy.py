"""deploy/haproxy.cfg: checked by HAProxy itself, then run on loopback in front of two
stand-in replicas (the balancer's rules are under test here, not threadwise: stand-ins answer
503 or go away on demand, in milliseconds)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from pathlib import Path

import httpx2
import pytest
from websockets.http11 import Request, Response
from websockets.sync.client import connect
from websockets.sync.server import ServerConnection, serve

from scripts.model_server import free_port
from tests.conftest import eventually
from tests.deploy.conftest import DEPLOY, haproxy_binary
from tests.json_handler import JsonHandler
from threadwise import INTERFACE_VERSION
from threadwise.protocol import ErrorCode, error_envelope

CONFIG = DEPLOY / "haproxy.cfg"
_ERROR = re.compile(
    r"^\s*http-error status (\d+) content-type application/json string '([^']*)'(.*)$"
)


def _check(binary: str, environment: dict[str, str]) -> list[str]:
    result = subprocess.run(
        [binary, "-c", "-f", str(CONFIG)], env=environment, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return [line for line in result.stderr.splitlines() if "[WARNING]" in line]


def test_haproxy_accepts_the_configuration() -> None:
    binary = haproxy_binary()
    # As compose runs it: only the replicas' names, which resolve inside compose, warn here.
    warnings = _check(binary, {})
    assert len(warnings) == 2
    assert all("could not resolve address 'threadwise-" in warning for warning in warnings)
    loopback = {
        "BALANCER_BIND": "127.0.0.1:1",
        "REPLICA_1_ADDRESS": "127.0.0.1:2",
        "REPLICA_2_ADDRESS": "127.0.0.1:3",
    }
    assert _check(binary, loopback) == []


def test_the_balancers_own_errors_are_the_services_envelopes() -> None:
    expected = {
        503: ErrorCode.OVERLOADED,
        504: ErrorCode.REQUEST_TIMEOUT,
        502: ErrorCode.PROCESSING_FAILED,  # a replica ended mid-request: its code, HAProxy's 502
    }
    found = {}
    for line in CONFIG.read_text().splitlines():
        if match := _ERROR.match(line):
            status, body, headers = int(match[1]), json.loads(match[2]), match[3]
            code = expected[status]
            envelope = error_envelope("superpower", code, body["error"]["message"]).to_wire()
            assert body == envelope
            assert f"hdr X-Interface-Version {INTERFACE_VERSION}" in headers
            assert ("hdr Retry-After 1" in headers) == (status == 503)
            found[status] = code
    assert found == expected


@dataclass
class Replica:
    """Answers like a replica: /readyz, and POST with its name; 503 OVERLOADED when busy."""

    name: str
    busy: bool = False
    readiness: tuple[int, str] = (200, "ready")  # /readyz's status and its body's "status"
    checks: int = 0  # health checks answered
    served: list[str] = field(default_factory=list)
    forwarded_for: list[list[str]] = field(default_factory=list)  # each POST's X-Forwarded-For

    def start(self) -> ThreadingHTTPServer:
        replica = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:
                replica.checks += 1
                status, state = replica.readiness
                self.answer_json(status, {"status": state})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                replica.forwarded_for.append(self.headers.get_all("X-Forwarded-For") or [])
                if replica.busy:
                    self.answer_json(503, {"error": {"code": "OVERLOADED"}})
                    return
                replica.served.append(self.path)
                self.answer_json(200, {"replica": replica.name})

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server


@dataclass
class Balancer:
    url: str
    replicas: list[Replica]
    servers: list[ThreadingHTTPServer]


def _wait_for(url: str, status: int, seconds: float = 10) -> None:
    def answers() -> bool:
        try:
            return httpx2.get(url, timeout=1).status_code == status
        except httpx2.TransportError:
            return False

    eventually(answers, seconds, f"{url} did not answer {status} in {seconds} s")


@contextmanager
def _haproxy(replicas: list[int], log: Path) -> Iterator[str]:
    """HAProxy with deploy/haproxy.cfg on a free port of 127.0.0.1, in front of these ports;
    its URL once it is ready."""
    binary = haproxy_binary()
    port = free_port()
    environment = {
        "BALANCER_BIND": f"127.0.0.1:{port}",
        **{f"REPLICA_{n}_ADDRESS": f"127.0.0.1:{p}" for n, p in enumerate(replicas, 1)},
    }
    with log.open("w") as output:
        process = subprocess.Popen(
            [binary, "-db", "-f", str(CONFIG)], env=environment, stdout=output, stderr=output
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_for(f"{url}/balancer/readyz", 200)
            yield url
        finally:
            process.terminate()
            process.wait(10)


@pytest.fixture
def balancer(tmp_path: Path) -> Iterator[Balancer]:
    replicas = [Replica("a"), Replica("b")]
    with ExitStack() as stack:
        servers = [replica.start() for replica in replicas]
        for server in servers:
            stack.callback(server.server_close)
            stack.callback(server.shutdown)
        ports = [server.server_address[1] for server in servers]
        url = stack.enter_context(_haproxy(ports, tmp_path / "haproxy.log"))
        yield Balancer(url, replicas, servers)


def _summarize(balancer: Balancer, thread: str, **headers: str) -> httpx2.Response:
    body = {"request": {"connections": {"threadId": thread}}}
    return httpx2.post(f"{balancer.url}/message/summarize", json=body, headers=headers)


def test_a_thread_goes_back_to_its_replica(balancer: Balancer) -> None:
    first = _summarize(balancer, "thread-1").json()["replica"]
    assert {_summarize(balancer, "thread-1").json()["replica"] for _ in range(5)} == {first}
    # The header, when a client sends one, names the thread.
    by_header = _summarize(balancer, "", **{"X-Thread-Id": "thread-2"}).json()["replica"]
    assert {_summarize(balancer, "", **{"X-Thread-Id": "thread-2"}).json()["replica"]} == {
        by_header
    }
    # New threads go to the least busy replica: both get some.
    assert {_summarize(balancer, f"new-{n}").json()["replica"] for n in range(6)} == {"a", "b"}


def test_the_replicas_are_told_only_the_address_the_client_connected_from(
    balancer: Balancer,
) -> None:
    """The replicas believe the first address of X-Forwarded-For (they trust every hop,
    THREADWISE_FORWARDED_ALLOW_IPS "*"): one a client wrote there would be taken for its own,
    and per-address limits escaped by writing another each time."""
    _summarize(balancer, "thread-1", **{"X-Forwarded-For": "203.0.113.9"})
    assert [f for replica in balancer.replicas for f in replica.forwarded_for] == [["127.0.0.1"]]


def test_overloaded_is_tried_on_the_other_replica(balancer: Balancer) -> None:
    first = _summarize(balancer, "thread-1").json()["replica"]
    sticky = next(replica for replica in balancer.replicas if replica.name == first)
    sticky.busy = True
    answer = _summarize(balancer, "thread-1")
    assert answer.status_code == 200 and answer.json()["replica"] != first
    for replica in balancer.replicas:
        replica.busy = True
    # Every replica overloaded: the client gets a replica's 503 (its Retry-After) to retry.
    assert _summarize(balancer, "thread-1").status_code == 503


def test_without_replicas_the_balancer_answers_overloaded(balancer: Balancer) -> None:
    for server in balancer.servers:
        server.shutdown()
        server.server_close()
    answer = _summarize(balancer, "thread-1")
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
    assert answer.headers["X-Interface-Version"] == INTERFACE_VERSION
    assert answer.json()["error"] == {
        "code": "OVERLOADED",
        "message": answer.json()["error"]["message"],
        "retryable": True,
    }
    # Its own readiness follows once the health checks have seen them go (2 x 2 s).
    _wait_for(f"{balancer.url}/balancer/readyz", 503)


def test_websockets_pass_through(tmp_path: Path) -> None:
    def echo(socket: ServerConnection) -> None:
        for message in socket:
            socket.send(f"echo {message!s}")

    def ready(socket: ServerConnection, request: Request) -> Response | None:
        if request.path != "/readyz":
            return None
        return socket.respond(HTTPStatus.OK, json.dumps({"status": "ready"}))

    with serve(echo, "127.0.0.1", 0, process_request=ready) as replica:
        threading.Thread(target=replica.serve_forever, daemon=True).start()
        port = replica.socket.getsockname()[1]
        with (
            _haproxy([port, port], tmp_path / "haproxy.log") as url,
            connect(url.replace("http://", "ws://") + "/ws") as socket,
        ):
            for text in ("one", "two"):
                socket.send(text)
                assert socket.recv(timeout=5) == f"echo {text}"


def test_query_strings_stay_out_of_the_log(balancer: Balancer, tmp_path: Path) -> None:
    # The official client sends its secret in the token request's query; a WebSocket may
    # carry its token as ?Authorization=…
    secret = "tws_not-for-the-log"
    answer = httpx2.post(
        f"{balancer.url}/auth/oauth2/token?grant_type=client_credentials&client_secret={secret}"
    )
    assert answer.status_code == 200
    log = tmp_path / "haproxy.log"
    eventually(lambda: "/auth/oauth2/token" in log.read_text(), 5, "HAProxy did not log it")
    text = log.read_text()
    assert '"POST /auth/oauth2/token HTTP/1.1"' in text
    assert secret not in text and "grant_type" not in text


def _serving(balancer: Balancer, expected: set[str], seconds: float = 15) -> set[str]:
    """Which replicas new threads reach, once it is ``expected`` (the health checks act
    within 2 x 2 s) or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while True:
        threads = [f"probe-{uuid.uuid4().hex}" for _ in range(6)]
        serving = {_summarize(balancer, thread).json()["replica"] for thread in threads}
        if serving == expected or time.monotonic() > deadline:
            return serving
        time.sleep(0.5)


def test_a_saturated_replica_stays_in_and_a_draining_one_goes(balancer: Balancer) -> None:
    a = balancer.replicas[0]
    # Saturated: /readyz is 503 for autoscalers, but the replica still serves what it can.
    checked = a.checks
    a.readiness = (503, "saturated")
    # Two failed checks would have taken it out.
    eventually(lambda: a.checks >= checked + 3, 15, "HAProxy stopped checking the replica")
    assert _serving(balancer, {"a", "b"}, seconds=0) == {"a", "b"}
    for state in ("draining", "unavailable"):
        a.readiness = (503, state)
        assert _serving(balancer, {"b"}) == {"b"}, state
        a.readiness = (200, "ready")
        assert _serving(balancer, {"a", "b"}) == {"a", "b"}
