"""A scripted OpenAI-compatible server, for what a real one cannot be made to do on demand:
answer 429 or 503, drop a stream halfway, stop answering. Everything else is tested against
llama-cpp-python's real server (``tests/llama_server.py``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.json_handler import JsonHandler

MODEL = "fake-model"


@dataclass(frozen=True)
class Refuse:
    """Answer with ``status`` (and ``headers``), no stream."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: str = '{"error": {"message": "scripted refusal"}}'


@dataclass(frozen=True)
class Stream:
    """Stream ``pieces``, ``delay`` seconds apart, then ``finish``; with ``drop``, close the
    connection after that many pieces instead."""

    pieces: tuple[str, ...] = ("Hello", " there.")
    finish: str | None = "stop"
    delay: float = 0.0
    drop: int | None = None


@dataclass
class Seen:
    """What the server was sent, and what happened to its streams."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    tokenized: list[str] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    # Streams whose client went away before the end.
    abandoned: threading.Event = field(default_factory=threading.Event)


class FakeServer:
    def __init__(self, port: int = 0) -> None:
        self.script: list[Refuse | Stream] = []  # taken in order; then the default Stream
        self.seen = Seen()
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._http.daemon_threads = True
        self.port = self._http.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def next_action(self, payload: dict[str, Any], headers: dict[str, str]) -> Refuse | Stream:
        with self._lock:
            self.seen.requests.append(payload)
            self.seen.headers.append(headers)
            return self.script.pop(0) if self.script else Stream()

    def entered(self, change: int) -> None:
        with self._lock:
            self.seen.in_flight += change
            self.seen.most_in_flight = max(self.seen.most_in_flight, self.seen.in_flight)

    @contextmanager
    def running(self) -> Iterator[FakeServer]:
        thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._http.shutdown()
            self._http.server_close()
            thread.join(timeout=10)


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self.answer_json(
                    200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
                )
            elif self.path == "/health":
                self.answer_json(200, {"status": "ok"})
            else:
                self.answer_json(404, {"detail": "Not Found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length))
            if self.path == "/tokenize":  # llama.cpp's ("content") and vLLM's ("prompt")
                words = str(payload.get("content", payload.get("prompt"))).split()
                server.seen.tokenized.append(" ".join(words))
                self.answer_json(200, {"tokens": list(range(len(words))), "count": len(words)})
                return
            if self.path != "/v1/chat/completions":
                self.answer_json(404, {"detail": "Not Found"})
                return
            action = server.next_action(payload, dict(self.headers))
            if isinstance(action, Refuse):
                body = action.body.encode()
                self.send_response(action.status)
                for name, value in {"Content-Type": "application/json", **action.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            server.entered(+1)
            try:
                self._stream(action)
            except (BrokenPipeError, ConnectionResetError):
                server.seen.abandoned.set()
            finally:
                server.entered(-1)

        def _stream(self, action: Stream) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for number, piece in enumerate(action.pieces):
                if action.drop is not None and number >= action.drop:
                    self.close_connection = True
                    self.wfile.flush()
                    self.connection.close()  # no terminating chunk: a dropped stream
                    return
                if number and action.delay:
                    time.sleep(action.delay)
                self._event({"choices": [{"index": 0, "delta": {"content": piece}}]})
            if action.finish is not None:
                self._event(
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": action.finish}]}
                )
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")

        def _event(self, chunk: dict[str, Any]) -> None:
            self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler
