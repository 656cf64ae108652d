"""The app with its language model on a model server: llama-cpp-python's real server with the
small packaged model on 127.0.0.1, and engine profiles (``A``: the same model embedded) picked
by the request's variant. Summaries, the model's translations, streaming, a cancel and a
deadline go through the server; properties only, never the model's wording. A server that is
down is one that nothing listens for."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from scripts.model_server import ALIAS, SMALL_MODEL, free_port
from tests.conftest import DATA, minimal_body, serving, signed_in, until, wait_until_ready
from tests.engines.remote.fake_server import FakeServer
from threadwise.client import ThreadwiseClient, ThreadwiseError
from threadwise.config import RemoteEngine, Settings
from threadwise.engines.model_files import prepare_model
from threadwise.services import Services, build_services

REMOTE = f"openai:{ALIAS}@127.0.0.1:"
EMBEDDED = "llama.cpp:qwen2.5-coder-0.5b"


@contextmanager
def started(settings: Settings) -> Iterator[Services]:
    services = build_services(settings)
    services.start()
    try:
        wait_until_ready(services)
        yield services
    finally:
        services.close()


def remote_settings(data_dir: Path, url: str, **overrides: Any) -> Settings:
    overrides = {
        "translation_timeout_seconds": 120,
        "request_timeout_seconds": 300,
        "llm_nice": 0,
        "result_cache_ttl_seconds": 0,
        **overrides,
    }
    return Settings(data_dir=data_dir, llm_url=url, **overrides)


@pytest.fixture(scope="module")
def remote(llama_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """The default engine on the server; profile A the same small model embedded."""
    small = prepare_model(SMALL_MODEL, Settings().model_dir)
    settings = remote_settings(
        tmp_path_factory.mktemp("remote"),
        llama_server_url,
        llm_model_path=small,
        engine_profiles={"A": "embedded"},
    )
    with started(settings) as services:
        yield services


@pytest.fixture(scope="module")
def http(remote: Services) -> Iterator[TestClient]:
    with signed_in(remote, ["org-1"], "remote tests", unlimited=True) as client:
        yield client


def summary(http: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    response = http.post("/message/summarize", json=body)
    assert response.status_code == 200, response.text
    item: dict[str, Any] = response.json()["message"]["results"][0]["response"][0]
    assert item["type"] == "summary" and item["content"].strip()
    return item


@pytest.mark.model
def test_readiness_names_the_engine_on_the_server(http: TestClient) -> None:
    response = http.get("/readyz")
    assert response.status_code == 200, response.text
    assert response.json()["engine"].startswith(REMOTE)


@pytest.mark.model
def test_a_variant_picks_its_engine_profile(http: TestClient) -> None:
    def engine(variant: str | None) -> str:
        body = minimal_body(attributes={"variant": variant} if variant else {})
        name: str = summary(http, body)["engine"]
        return name

    assert engine(None).startswith(REMOTE)
    assert engine("a").startswith(EMBEDDED)
    unknown = engine("Z")
    assert unknown.startswith(REMOTE) and unknown.endswith(" (variant Z unknown: default)")


@pytest.mark.model
def test_a_translation_by_the_model_goes_through_the_server(http: TestClient) -> None:
    # English to German: no fast engine has it, so the quality tier cannot fall back.
    body = minimal_body(settings={"overrideOutputLanguage": "de-DE", "translationMode": "quality"})
    response = http.post("/message/translate", json=body)
    assert response.status_code == 200, response.text
    items = response.json()["message"]["results"][0]["response"]
    assert len(items) == 2
    for item in items:
        assert item["engine"].startswith(REMOTE) and item["targetLanguage"] == "de-DE"
        assert item["content"].strip()


@asynccontextmanager
async def connected(services: Services) -> AsyncIterator[Any]:
    registered = services.auth.clients.create(
        "default", ["org-1"], "remote socket", requests_per_minute=10_000
    )
    with serving(services, services.settings) as server:
        async with (
            ThreadwiseClient(
                f"http://127.0.0.1:{server.config.port}",
                client_id=registered.client.client_id,
                client_secret=registered.client_secret,
                timeout=300,
            ) as client,
            client.connect() as socket,
        ):
            yield socket


@pytest.mark.model
def test_streaming_over_the_websocket(remote: Services) -> None:
    async def scenario() -> list[dict[str, Any]]:
        async with connected(remote) as socket:
            return [f async for f in socket.stream("summarize", minimal_body(), timeout=300)]

    *partial, completed = asyncio.run(scenario())
    assert partial and all(f["state"] == "started" for f in partial)
    assert completed["state"] == "completed"
    texts = [f["message"]["results"][0]["response"][0]["content"] for f in partial]
    for before, after in itertools.pairwise(texts):
        assert after.startswith(before) and len(after) > len(before)
    assert completed["message"]["results"][0]["response"][0]["engine"].startswith(REMOTE)


@pytest.mark.model
def test_a_cancel_closes_the_request_on_the_server(remote: Services) -> None:
    body = minimal_body()
    body["request"]["scope"] = support_chat_scope()

    async def scenario() -> None:
        async with connected(remote) as socket:
            correlation_id = await socket.send("summarize", body, stream=True)
            frames = socket.replies(correlation_id, timeout=300)
            assert (await anext(frames))["state"] == "started"  # the server is writing
            await socket.cancel(correlation_id)
            with pytest.raises(ThreadwiseError) as cancelled:
                async for _ in frames:
                    pass
            assert cancelled.value.code == "REQUEST_CANCELLED"
            await until(lambda: remote.llm_queue.depth == 0, seconds=5)
            # The server goes on: the next request is answered.
            answered = await socket.summarize(minimal_body())
            assert answered["message"]["results"][0]["response"][0]["engine"].startswith(REMOTE)

    asyncio.run(scenario())


def support_chat_scope() -> dict[str, Any]:
    scope: dict[str, Any] = json.loads((DATA / "support_chat.json").read_text())["request"]["scope"]
    return scope


@pytest.mark.model
def test_a_deadline_is_answered_504(
    llama_server_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    settings = remote_settings(
        tmp_path_factory.mktemp("deadline"), llama_server_url, request_timeout_seconds=1.5
    )
    body = minimal_body()
    body["request"]["scope"] = support_chat_scope()
    with started(settings) as services, signed_in(services, ["org-1"], "deadline") as http:
        response = http.post("/message/summarize", json=body)
        assert response.status_code == 504, response.text
        assert response.json()["error"]["code"] == "REQUEST_TIMEOUT"


def test_a_model_server_that_is_down_makes_readyz_say_so_and_requests_fail_fast(
    tmp_path: Path,
) -> None:
    nothing_listens = f"http://127.0.0.1:{free_port()}/v1"
    settings = remote_settings(tmp_path, nothing_listens, llm_breaker_seconds=60)
    with started(settings) as services, signed_in(services, ["org-1"], "down") as http:
        ready = http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["status"] == "unavailable"
        assert nothing_listens.removesuffix("/v1").removeprefix("http://") in ready.json()["error"]
        # The breaker is open (readiness says why): refused without trying the server.
        refused = http.post("/message/summarize", json=minimal_body())
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "OVERLOADED"
        assert int(refused.headers["Retry-After"]) >= 1
        # A translation the model would have done falls back to the fast engine, and says so.
        body = minimal_body(settings={"overrideOutputLanguage": "es", "translationMode": "quality"})
        translated = http.post("/message/translate", json=body)
        assert translated.status_code == 200, translated.text
        for item in translated.json()["message"]["results"][0]["response"]:
            assert item["engine"].endswith("(fast fallback: the model server is down)")


def test_a_profile_whose_server_is_down_leaves_the_replica_ready(tmp_path: Path) -> None:
    """Only the default engine's server decides readiness: requests of other profiles fail
    at once while theirs is down, and /readyz names it."""
    down = RemoteEngine(url=f"http://127.0.0.1:{free_port()}/v1")
    with FakeServer().running() as default:
        settings = remote_settings(tmp_path, default.url, engine_profiles={"B": down})
        with started(settings) as services, signed_in(services, ["org-1"], "B down") as http:
            ready = http.get("/readyz")
            assert ready.status_code == 200, ready.text
            assert set(ready.json()["unavailable"]) == {"B"}
            body = minimal_body(attributes={"variant": "B"})
            refused = http.post("/message/summarize", json=body)
            assert refused.status_code == 503 and refused.json()["error"]["code"] == "OVERLOADED"
