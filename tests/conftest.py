from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

# scripts/with-services.sh (which `make test` runs pytest through) exports these servers' URLs.
from scripts.cluster import POSTGRES_VARIABLE, fresh_database
from scripts.model_server import free_port
from threadwise.api.app import create_app
from threadwise.api.server import Server, build_server
from threadwise.config import Settings
from threadwise.db.database import Database
from threadwise.deadlines import Deadline
from threadwise.engines.model_files import DEFAULT_MODEL, prepare_model
from threadwise.services import Services, build_services

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # The real default model, from the shared model cache; state in a throwaway directory.
    # Generous deadlines: these tests check what the engines write, not how fast (a busy
    # 2-core machine must not turn them into timeouts; the benchmarks measure speed).
    return Settings(
        data_dir=tmp_path_factory.mktemp("data"),
        request_timeout_seconds=900,
        translation_timeout_seconds=180,
        # On a machine shared with other work, a nice model would wait for it.
        llm_nice=0,
        # Tests send the same bodies again and mean it: no answer from a cache (the tests of
        # the cache turn it on).
        result_cache_ttl_seconds=0,
    )


@pytest.fixture(scope="session")
def services(settings: Settings) -> Iterator[Services]:
    built = build_services(settings)
    built.start()
    yield built
    built.close()


@contextmanager
def signed_in(
    services: Services,
    organizations: list[str],
    name: str,
    *,
    unlimited: bool = False,
    **client: Any,
) -> Iterator[TestClient]:
    """A client of the app (``client`` are TestClient's options) sending a valid token for
    ``organizations``; ``unlimited``: with no per-organization limit worth the name."""
    limits: dict[str, int] = {}
    if unlimited:
        limits = {"requests_per_minute": 1_000_000, "characters_per_minute": 1_000_000_000}
    registered = services.auth.clients.create("default", organizations, name, **limits)
    app = create_app(services.serving_context())
    with TestClient(app, **client) as http:
        response = http.post(
            "/auth/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(registered.client.client_id, registered.client_secret),
        )
        assert response.status_code == 200, response.text
        http.headers["Authorization"] = f"Bearer {response.json()['access_token']}"
        yield http


@pytest.fixture(scope="session")
def client(services: Services) -> Iterator[TestClient]:
    """The app, sending a valid token for the organizations the tests' bodies name."""
    # From loopback, as a local Prometheus: /metrics answers it without a metrics token.
    with signed_in(services, ["org-1", "org-bench"], "tests", client=("127.0.0.1", 50000)) as c:
        yield c


@dataclass(frozen=True)
class LiveServer:
    """The app on uvicorn on 127.0.0.1, and a client registered for org-1 and org-bench."""

    url: str
    client_id: str
    client_secret: str
    server: Server

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)


def run_in_thread(server: uvicorn.Server) -> threading.Thread:
    """Run ``server`` on a thread of its own; return once it serves (told by its startup)."""
    started = threading.Event()
    startup = server.startup

    async def startup_then_signal(sockets: list[socket.socket] | None = None) -> None:
        try:
            await startup(sockets)
        finally:
            started.set()  # up, or given up (its lifespan failed, its port was taken)

    server.startup = startup_then_signal  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    assert started.wait(30) and server.started, "uvicorn did not start"
    return thread


@contextmanager
def serving(services: Services, settings: Settings) -> Iterator[Server]:
    """``threadwise serve``'s server, for ``services``, on a free port of 127.0.0.1."""
    app = create_app(services.serving_context())
    server = build_server(
        app, settings, "127.0.0.1", free_port(), log_config=None, log_level="warning"
    )
    thread = run_in_thread(server)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=60)


def wait_until_ready(services: Services, seconds: float = 180) -> None:
    """Until the engines are loaded (not ``ready``: that also turns false while a queue is
    saturated, which tests do on purpose)."""
    loaded = services.wait_loaded(seconds)
    assert services.load_error is None, services.load_error
    assert loaded, f"the engines did not load within {seconds:g} s"


@pytest.fixture
def loaded_engines(services: Services) -> None:
    """For tests that call the engines themselves, not through their queues: not while the
    queues still load them (two threads in one llama.cpp context crash it)."""
    wait_until_ready(services)


@pytest.fixture(scope="session")
def live_server(services: Services, settings: Settings) -> Iterator[LiveServer]:
    """A real server on a real socket, its engines loaded."""
    wait_until_ready(services)
    # Limits high enough for the tests' bursts: they check answers, not rate limits.
    registered = services.auth.clients.create(
        "default",
        ["org-1", "org-bench"],
        "live tests",
        requests_per_minute=1_000_000,
        characters_per_minute=1_000_000_000,
    )
    with serving(services, settings) as server:
        yield LiveServer(
            f"http://127.0.0.1:{server.config.port}",
            registered.client.client_id,
            registered.client_secret,
            server,
        )


def service_url(variable: str) -> str:
    """The URL of a server scripts/with-services.sh started; skips (fails on CI) without it."""
    url = os.environ.get(variable)
    if url:
        return url
    message = f"{variable} is not set: run through scripts/with-services.sh (make test does)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, and a database on the test PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'threadwise.db'}"
        return
    with fresh_database(service_url(POSTGRES_VARIABLE)) as url:
        yield url


@pytest.fixture(scope="module")
def database(database_url: str) -> Iterator[Database]:
    """A database of each kind (``database_url``), migrated to the current schema."""
    built = Database(database_url)
    built.upgrade()
    yield built
    built.close()


@pytest.fixture(scope="session")
def llama_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server with the small packaged model, on
    127.0.0.1: its base URL (``tests/llama_server.py``)."""
    from scripts.model_server import SMALL_MODEL, llama_server

    model = prepare_model(SMALL_MODEL, Settings().model_dir)
    with llama_server(model, tmp_path_factory.mktemp("llama-server") / "server.log") as url:
        yield url


def model_free_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Settings for an app whose tests never reach the model (it is never loaded): the
    joined model file is named directly, so building the services does not hash it again."""
    model = Settings().model_dir / DEFAULT_MODEL.filename
    if model.is_file():
        overrides.setdefault("llm_model_path", model)
    return Settings(data_dir=data_dir, **overrides)


@pytest.fixture
def isolated_logging() -> Iterator[None]:
    """Undo what a test's logging configuration (the CLI's, uvicorn's) did to the loggers."""
    names = ["", "uvicorn", "uvicorn.error", "uvicorn.access", "alembic", "threadwise"]
    saved = {}
    for name in names:
        logger = logging.getLogger(name)
        saved[name] = (logger.handlers[:], logger.level, logger.propagate, logger.disabled)
    yield
    for name, (handlers, level, propagate, disabled) in saved.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate, logger.disabled = propagate, disabled


@pytest.fixture
def support_chat() -> dict[str, Any]:
    body: dict[str, Any] = json.loads((DATA / "support_chat.json").read_text())
    return body


def deadline_at_check(checks: int) -> Deadline:
    """A deadline that passes at its ``checks``-th look at the clock: work that checks it as
    it goes stops there, however fast or busy the machine is."""
    ticks = itertools.count()
    return Deadline(checks - 0.5, clock=lambda: float(next(ticks)))


def eventually(condition: Callable[[], bool], seconds: float, failure: str) -> None:
    """Wait until ``condition`` holds (another process or thread makes it so), checking
    every 50 ms; fail with ``failure`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


async def until(condition: Callable[[], object], seconds: float = 10) -> None:
    """``eventually`` for a coroutine: wait, without blocking the event loop, until
    ``condition`` holds; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def minimal_body(**request: Any) -> dict[str, Any]:
    """A small valid body; keyword arguments replace keys of ``request``."""
    base: dict[str, Any] = {
        "connections": {"threadId": "thread-1"},
        "context": {"organizationId": "org-1"},
        "scope": {
            "conversations": [
                {
                    "conversationId": "conv-901",
                    "participants": [
                        {"participantId": "c", "role": "user", "displayName": "Ana"},
                        {"participantId": "a", "role": "operator", "displayName": "Bo"},
                    ],
                    "messages": [
                        {"participantId": "c", "content": "My parcel 7781 is late."},
                        {"participantId": "a", "content": "I have sent a new one today."},
                    ],
                }
            ]
        },
    }
    base.update(request)
    return {"session": {"channel": {"language": "en-US"}}, "request": base}
