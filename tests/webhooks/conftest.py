"""A webhook receiver for the tests: a real HTTP server on 127.0.0.1, in a thread."""

from __future__ import annotations

import contextlib
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.webhooks.certificates import tls_contexts

TLS_NAME = "hooks.example"


@dataclass
class Receiver:
    """What the server received; ``/status/N`` answers N, ``/slow`` answers once ``release``
    is set, ``/redirect`` sends elsewhere, ``/big`` answers ``big_size`` bytes; under
    ``/first/``, the first request to a path answers as above (``/first/status/500``) and
    the later ones 204; any other path 204."""

    port: int
    received: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    big_size: int = 256 * 1024
    client_tls: ssl.SSLContext | None = None  # what trusts the server's certificate, over TLS
    ports: list[int] = field(default_factory=list)  # each request's client port

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # As receivers are: a connection kept alive for the next request.
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            path = self.path
            if path.startswith("/first/"):
                seen = any(earlier == path for earlier, _, _ in receiver.received)
                path = "/" if seen else path.removeprefix("/first")
            receiver.received.append((self.path, dict(self.headers.items()), body))
            receiver.ports.append(self.client_address[1])
            if path.startswith("/status/"):
                self._answer(int(path.rsplit("/", 1)[1]))
            elif path == "/slow":
                receiver.release.wait(30)
                self._answer(204)
            elif path == "/redirect":
                self._answer(302, location=receiver.url("/elsewhere"))
            elif path == "/big":
                self._answer(200, b"x" * receiver.big_size)
            else:
                self._answer(204)

        def _answer(self, status: int, body: bytes = b"", location: str | None = None) -> None:
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            # The client may stop reading at its cap and close.
            with contextlib.suppress(OSError):
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep the test output quiet

    return Handler


@contextlib.contextmanager
def served(tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    serving = Receiver(server.server_address[1])
    server.RequestHandlerClass = _handler(serving)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield serving
    finally:
        serving.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def _serving() -> Iterator[Receiver]:
    with served() as serving:
        yield serving


@pytest.fixture(scope="module")
def tls_receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Receiver]:
    """A receiver over HTTPS, its certificate for ``TLS_NAME``; ``tls_client`` trusts it."""
    server, client = tls_contexts(TLS_NAME, tmp_path_factory.mktemp("tls"))
    with served(server) as serving:
        serving.client_tls = client
        yield serving


@pytest.fixture
def receiver(_serving: Receiver) -> Iterator[Receiver]:
    """The module's receiver, with nothing received yet."""
    _serving.received.clear()
    _serving.ports.clear()
    _serving.release.clear()
    yield _serving
    _serving.release.set()  # a /slow request still waiting ends


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
