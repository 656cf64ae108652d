"""How the client proves who it is: an API key, a token given as it is, or client credentials
exchanged for tokens that are refreshed before they expire."""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Callable

import httpx2

from threadwise.client.errors import ThreadwiseError

TOKEN_PATH = "/auth/oauth2/token"
# A token is renewed this long before the server would refuse it: clocks differ, and a
# request sent just before expiry may be checked just after.
REFRESH_MARGIN_SECONDS = 60.0


class Credentials(ABC):
    """What the ``Authorization: Bearer`` header of each request carries."""

    @abstractmethod
    async def bearer(self, http: httpx2.AsyncClient) -> str:
        """The value to send now."""

    async def refreshed(self, http: httpx2.AsyncClient, rejected: str) -> str | None:
        """A new value after the server said ``rejected`` expired; None when there is none
        to get (a key or a given token cannot be renewed)."""
        return None


class ApiKey(Credentials):
    """A static key (``twk_…``), sent as the bearer token; it does not expire."""

    def __init__(self, key: str) -> None:
        if not key.strip():
            raise ValueError("api_key is empty; give the key `threadwise api-keys create` printed")
        self.key = key.strip()

    async def bearer(self, http: httpx2.AsyncClient) -> str:
        return self.key


class GivenToken(Credentials):
    """An access token obtained elsewhere, used as it is until the server refuses it."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def bearer(self, http: httpx2.AsyncClient) -> str:
        return self.token


class ClientCredentials(Credentials):
    """OAuth2 client credentials: a token fetched on first use, fetched again ``margin``
    seconds before its ``expires_in`` runs out, and once more when the server says it expired.
    Concurrent callers share one fetch in flight."""

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        *,
        margin: float = REFRESH_MARGIN_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.margin = margin
        self.clock = clock
        self.fetches = 0  # tokens fetched so far (for tests and logs)
        self._token: str | None = None
        self._renew_at = 0.0
        self._lock = asyncio.Lock()

    async def bearer(self, http: httpx2.AsyncClient) -> str:
        token = self._token
        if token is not None and self.clock() < self._renew_at:
            return token
        async with self._lock:
            # Another caller may have fetched one while this one waited for the lock.
            if self._token is None or self.clock() >= self._renew_at:
                await self._fetch(http)
            assert self._token is not None
            return self._token

    async def refreshed(self, http: httpx2.AsyncClient, rejected: str) -> str | None:
        async with self._lock:
            if self._token == rejected:  # else another caller has already renewed it
                await self._fetch(http)
            return self._token

    async def _fetch(self, http: httpx2.AsyncClient) -> None:
        # As the official client asks for it: the credentials in the query string.
        asked_at = self.clock()
        response = await http.post(
            TOKEN_PATH,
            params={
                "grant_type": "client_credentials",
                "client_id": self.client_id,
                "client_secret": self.client_secret,
            },
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code != 200 or not isinstance(answer, dict):
            raise ThreadwiseError.from_reply(answer, response.status_code, response.headers)
        self._token = str(answer["access_token"])
        lifetime = float(answer.get("expires_in") or 0)
        # A lifetime shorter than twice the margin is renewed at its half instead.
        margin = min(self.margin, lifetime / 2)
        self._renew_at = asked_at + lifetime - margin
        self.fetches += 1
