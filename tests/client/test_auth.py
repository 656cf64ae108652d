"""Tokens of client credentials, over a fake token endpoint: fetched once, shared by
concurrent callers, renewed before they expire, and renewed once on TOKEN_EXPIRED (also from
a live server)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx2
import pytest

from tests.clock import ManualClock
from tests.conftest import LiveServer
from threadwise.client import ClientCredentials, ThreadwiseClient, ThreadwiseError
from threadwise.services import Services

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class TokenEndpoint:
    """Issues tok-1, tok-2, … living ``expires_in`` seconds; /languages refuses the tokens
    in ``expired``."""

    def __init__(self, expires_in: int = 3600) -> None:
        self.expires_in = expires_in
        self.issued = 0
        self.expired: set[str] = set()
        self.seen: list[str] = []
        # When set up, a token is issued only once the test opens it: callers pile up meanwhile.
        self.gate: asyncio.Event | None = None

    async def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/auth/oauth2/token":
            if self.gate is not None:
                await self.gate.wait()
            self.issued += 1
            token = f"tok-{self.issued}"
            return httpx2.Response(200, json={"access_token": token, "expires_in": self.expires_in})
        bearer = request.headers["Authorization"].removeprefix("Bearer ")
        self.seen.append(bearer)
        if bearer in self.expired:
            error = {"code": "TOKEN_EXPIRED", "message": "expired", "retryable": True}
            return httpx2.Response(401, json={"state": "error", "error": error})
        return httpx2.Response(200, json={"translation": [], "summary": ["en"]})


def client(endpoint: TokenEndpoint, credentials: ClientCredentials) -> ThreadwiseClient:
    return ThreadwiseClient(
        "http://threadwise.test",
        credentials=credentials,
        transport=httpx2.MockTransport(endpoint),
    )


async def test_concurrent_callers_share_one_fetch() -> None:
    endpoint = TokenEndpoint()
    credentials = ClientCredentials("twc_1", "tws_1")
    endpoint.gate = asyncio.Event()
    async with client(endpoint, credentials) as threadwise:
        calls = asyncio.gather(*(threadwise.languages() for _ in range(10)))
        for _ in range(20):  # every caller runs until it waits for the one token fetch
            await asyncio.sleep(0)
        endpoint.gate.set()
        await calls
    assert endpoint.issued == 1 and set(endpoint.seen) == {"tok-1"}


async def test_renewed_a_margin_before_it_expires() -> None:
    endpoint, clock = TokenEndpoint(expires_in=3600), ManualClock()
    credentials = ClientCredentials("twc_1", "tws_1", margin=60, clock=clock)
    async with client(endpoint, credentials) as threadwise:
        await threadwise.languages()
        clock.now = 3539
        await threadwise.languages()
        clock.now = 3540
        await threadwise.languages()
    assert endpoint.seen == ["tok-1", "tok-1", "tok-2"]


async def test_a_short_lifetime_is_renewed_at_its_half() -> None:
    endpoint, clock = TokenEndpoint(expires_in=30), ManualClock()
    credentials = ClientCredentials("twc_1", "tws_1", margin=60, clock=clock)
    async with client(endpoint, credentials) as threadwise:
        await threadwise.languages()
        clock.now = 15
        await threadwise.languages()
    assert endpoint.seen == ["tok-1", "tok-2"]


async def test_token_expired_is_renewed_once_and_the_call_sent_again() -> None:
    endpoint = TokenEndpoint()
    endpoint.expired.add("tok-1")
    async with client(endpoint, ClientCredentials("twc_1", "tws_1")) as threadwise:
        await threadwise.languages()
        endpoint.expired.add("tok-2")
        endpoint.expired.add("tok-3")
        with pytest.raises(ThreadwiseError) as refused:  # a new token refused too: no loop
            await threadwise.languages()
    assert endpoint.seen == ["tok-1", "tok-2", "tok-2", "tok-3"]
    assert refused.value.code == "TOKEN_EXPIRED" and refused.value.status == 401


async def test_no_credentials_says_what_to_give(monkeypatch: Any) -> None:
    for variable in ("THREADWISE_API_KEY", "THREADWISE_CLIENT_ID", "THREADWISE_CLIENT_SECRET"):
        monkeypatch.delenv(variable, raising=False)
    async with ThreadwiseClient("http://threadwise.test") as threadwise:
        with pytest.raises(ValueError, match="THREADWISE_API_KEY"):
            await threadwise.languages()


async def test_credentials_from_the_environment(monkeypatch: Any) -> None:
    monkeypatch.setenv("THREADWISE_API_KEY", "twk_from_env")
    async with ThreadwiseClient("http://threadwise.test") as threadwise:
        assert await threadwise.token() == "twk_from_env"


async def test_a_token_the_server_finds_expired_is_renewed(
    live_server: LiveServer, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    issuer = services.auth.issuer
    issued_at = [time.time() - 7200]  # the first token: issued two hours ago, long expired

    def clock() -> float:
        return issued_at.pop() if issued_at else time.time()

    monkeypatch.setattr(issuer, "clock", clock)
    credentials = ClientCredentials(live_server.client_id, live_server.client_secret)
    async with ThreadwiseClient(live_server.url, credentials=credentials) as threadwise:
        languages = await threadwise.languages()
    assert languages.translation and credentials.fetches == 2
