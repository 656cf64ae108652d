"""``ThreadwiseClient``: the async client. Typed calls over REST (summaries, translations,
glossaries, usage, languages), summaries streamed over the WebSocket, and sockets to open.

Each logical call gets one ``Idempotency-Key``, sent again with every retry of it, so that a
retry after a lost answer gets the first answer instead of doing (and charging) the work twice.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Self
from urllib.parse import urlsplit, urlunsplit

import httpx2

from threadwise.client import bodies
from threadwise.client.auth import ApiKey, ClientCredentials, Credentials, GivenToken
from threadwise.client.errors import ThreadwiseError
from threadwise.client.jobs import JobCalls
from threadwise.client.models import (
    Glossary,
    GlossaryEntry,
    Languages,
    Summary,
    SummaryDraft,
    Translation,
    Usage,
)
from threadwise.client.retry import RetryPolicy, with_retries
from threadwise.client.socket import SuperpowerSocket, Transport

Superpower = Literal["summarize", "translate"]
DEFAULT_TIMEOUT = 120.0
IDEMPOTENCY_HEADER = "Idempotency-Key"


def credentials_from(
    *,
    api_key: str | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
    token: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Credentials | None:
    """The credentials given, else those of THREADWISE_API_KEY or THREADWISE_CLIENT_ID and
    THREADWISE_CLIENT_SECRET; None when there are none."""
    if sum(x is not None for x in (api_key, token, client_id or client_secret)) > 1:
        raise ValueError("give one of api_key, token, or client_id with client_secret")
    if api_key is not None:
        return ApiKey(api_key)
    if token is not None:
        return GivenToken(token)
    if client_id is not None or client_secret is not None:
        if client_id is None or client_secret is None:
            raise ValueError("client_id and client_secret go together; one is missing")
        return ClientCredentials(client_id, client_secret)
    if environ.get("THREADWISE_API_KEY"):
        return ApiKey(environ["THREADWISE_API_KEY"])
    if environ.get("THREADWISE_CLIENT_ID") and environ.get("THREADWISE_CLIENT_SECRET"):
        return ClientCredentials(
            environ["THREADWISE_CLIENT_ID"], environ["THREADWISE_CLIENT_SECRET"]
        )
    return None


class ThreadwiseClient(JobCalls):
    """Async client of one threadwise server.

    Authenticates with ``api_key``, ``client_id`` and ``client_secret`` (tokens fetched and
    renewed), a ``token``, or ``credentials``; without any, from the environment. Retries
    follow ``retry``; ``transport`` replaces the HTTP transport (tests), ``sleep`` and
    ``clock`` the waits between retries and between a job's polls. Jobs: ``JobCalls``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        token: str | None = None,
        credentials: Credentials | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.credentials = credentials or credentials_from(
            api_key=api_key, client_id=client_id, client_secret=client_secret, token=token
        )
        self._sleep = sleep
        self._clock = clock
        self._http = httpx2.AsyncClient(
            base_url=self.base_url, timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- authentication --------------------------------------------------------------------

    async def token(self, *, refresh: bool = False) -> str:
        """The bearer value requests carry now (an access token or the API key);
        ``refresh``: a new token first."""
        credentials = self._credentials()
        current = await credentials.bearer(self._http)
        if refresh:
            return await credentials.refreshed(self._http, current) or current
        return current

    def _credentials(self) -> Credentials:
        if self.credentials is None:
            raise ValueError(
                "no credentials: give api_key=…, or client_id=… and client_secret=…, or set "
                "THREADWISE_API_KEY (or THREADWISE_CLIENT_ID and THREADWISE_CLIENT_SECRET)"
            )
        return self.credentials

    # --- HTTP ------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        resend_safe: bool = True,
    ) -> httpx2.Response:
        """One logical call, retried as ``self.retry`` says; the successful response, or
        ``ThreadwiseError``. ``resend_safe=False``: a request that may have reached the server
        is not sent again (one without an idempotency key that creates something)."""
        headers = {IDEMPOTENCY_HEADER: idempotency_key} if idempotency_key else {}

        async def attempt() -> httpx2.Response:
            return await self._send(method, path, json, params, headers)

        return await with_retries(
            self.retry, attempt, clock=self._clock, sleep=self._sleep, resend_safe=resend_safe
        )

    async def _send(
        self,
        method: str,
        path: str,
        json: Any,
        params: Mapping[str, str] | None,
        headers: dict[str, str],
    ) -> httpx2.Response:
        credentials = self._credentials()
        bearer = await credentials.bearer(self._http)
        response = await self._http.request(
            method, path, json=json, params=params, headers={**headers, **_auth(bearer)}
        )
        if response.status_code == 401 and _code(response) == "TOKEN_EXPIRED":
            # Refreshed once, then sent again at once: no wait, and no retry counted.
            renewed = await credentials.refreshed(self._http, bearer)
            if renewed is not None:
                response = await self._http.request(
                    method, path, json=json, params=params, headers={**headers, **_auth(renewed)}
                )
        if response.is_error:
            raise ThreadwiseError.from_reply(
                _json(response), response.status_code, response.headers
            )
        return response

    async def call(
        self, action: Superpower, body: dict[str, Any], *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /message/<action>`` with a request body as the API takes it: the completed
        envelope, or ``ThreadwiseError``. One idempotency key (given, or a new one) for all
        its retries."""
        key = idempotency_key or str(uuid.uuid4())
        response = await self.request("POST", f"/message/{action}", json=body, idempotency_key=key)
        envelope: dict[str, Any] = response.json()
        return envelope

    # --- superpowers -----------------------------------------------------------------------

    async def summarize(
        self,
        conversations: Sequence[bodies.ConversationLike] | bodies.ConversationLike,
        *,
        organization: str,
        language: str | None = None,
        aspects: Sequence[str] | None = None,
        format: str | None = None,
        mode: str | None = None,
        thread_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> Summary:
        """Summarize ``conversations`` for ``organization`` in ``language`` (default: the
        conversation's), as ``format`` (paragraph, bullets, structured) or as ``aspects``."""
        body = bodies.summarize_body(
            conversations,
            organization,
            thread_id,
            language=language,
            aspects=aspects,
            format=format,
            mode=mode,
        )
        return Summary.from_envelope(
            await self.call("summarize", body, idempotency_key=idempotency_key)
        )

    async def translate(
        self,
        texts_or_conversations: bodies.TextsOrConversations,
        *,
        organization: str,
        targets: str | Sequence[str],
        mode: str | None = None,
        glossary: str | None = None,
        formality: str | None = None,
        thread_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> list[Translation]:
        """Translate each text (or each message of the conversations) into each of
        ``targets``: target by target, message by message. ``mode``: fast or quality."""
        body = bodies.message_body(
            bodies.texts_or_conversations(texts_or_conversations),
            organization,
            bodies.translate_settings(
                targets=targets, mode=mode, glossary=glossary, formality=formality
            ),
            thread_id,
        )
        return Translation.list_from_envelope(
            await self.call("translate", body, idempotency_key=idempotency_key)
        )

    async def stream_summary(
        self,
        conversations: Sequence[bodies.ConversationLike] | bodies.ConversationLike,
        *,
        organization: str,
        language: str | None = None,
        aspects: Sequence[str] | None = None,
        format: str | None = None,
        mode: str | None = None,
        thread_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> AsyncIterator[SummaryDraft]:
        """A summary as the model writes it, over the WebSocket: drafts holding the text so
        far, then one with ``done`` and the ``summary``. A dropped connection is retried with
        the same idempotency key (drafts start again from the first)."""
        body = bodies.summarize_body(
            conversations,
            organization,
            thread_id,
            language=language,
            aspects=aspects,
            format=format,
            mode=mode,
        )
        key = idempotency_key or str(uuid.uuid4())
        queue: asyncio.Queue[SummaryDraft | None] = asyncio.Queue()

        async def attempt() -> None:
            async with self.connect() as socket:
                async for frame in socket.stream("summarize", body, idempotency_key=key):
                    if frame.get("state") == "started":
                        content = Summary.from_envelope(frame).text
                        queue.put_nowait(SummaryDraft(content))
                    else:
                        summary = Summary.from_envelope(frame)
                        queue.put_nowait(SummaryDraft(summary.text, True, summary))

        async def run() -> None:
            try:
                await with_retries(self.retry, attempt, clock=self._clock, sleep=self._sleep)
            finally:
                queue.put_nowait(None)

        task = asyncio.create_task(run())
        try:
            while (draft := await queue.get()) is not None:
                yield draft
            await task  # its error, if it failed
        finally:
            task.cancel()

    # --- resources -------------------------------------------------------------------------

    async def languages(self, *, source: str | None = None, target: str | None = None) -> Languages:
        """What can be translated (by which engine per tier, how well), and summarized; with
        ``source`` or ``target``, only the directions from or into that language."""
        params = {k: v for k, v in (("source", source), ("target", target)) if v is not None}
        return Languages.from_wire((await self.request("GET", "/languages", params=params)).json())

    async def usage(
        self, organization: str, *, first: str | None = None, last: str | None = None
    ) -> Usage:
        """The organization's usage from ``first`` to ``last`` (YYYY-MM-DD, UTC; default:
        this month), and its quota."""
        params = {"organizationId": organization}
        params |= {k: v for k, v in (("from", first), ("to", last)) if v is not None}
        return Usage.from_wire((await self.request("GET", "/usage", params=params)).json())

    async def glossaries(self, organization: str) -> list[Glossary]:
        """The organization's glossaries, without their entries."""
        response = await self.request("GET", "/glossaries", params={"organizationId": organization})
        return [Glossary.from_wire(g) for g in response.json()["glossaries"]]

    async def glossary(self, organization: str, glossary_id: str) -> Glossary:
        """A glossary with its entries."""
        response = await self.request(
            "GET", f"/glossaries/{glossary_id}", params={"organizationId": organization}
        )
        return Glossary.from_wire(response.json())

    async def create_glossary(
        self,
        organization: str,
        *,
        name: str,
        source: str,
        target: str,
        entries: Sequence[GlossaryEntry] | Mapping[str, str],
        default: bool = False,
    ) -> Glossary:
        """A new glossary of ``source`` → ``target`` terms (``{"source": "target"}`` or
        entries); ``default``: applied to the pair's translations that name none."""
        if isinstance(entries, Mapping):
            entries = [GlossaryEntry(s, t) for s, t in entries.items()]
        body = {
            "organizationId": organization,
            "name": name,
            "sourceLanguage": source,
            "targetLanguage": target,
            "entries": [entry.to_wire() for entry in entries],
            "default": default,
        }
        # The route takes no idempotency key: sent again only if it never left.
        response = await self.request("POST", "/glossaries", json=body, resend_safe=False)
        return Glossary.from_wire(response.json())

    async def delete_glossary(self, organization: str, glossary_id: str) -> None:
        await self.request(
            "DELETE", f"/glossaries/{glossary_id}", params={"organizationId": organization}
        )

    # --- WebSocket -------------------------------------------------------------------------

    def connect(
        self, *, transport: Transport = "subprotocol", path: str = "/ws"
    ) -> SuperpowerSocket:
        """A socket to open with ``async with`` (or ``await socket.open()``)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        url = urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + path, "", ""))
        return SuperpowerSocket(url, transport, self.token, self.timeout)


def _auth(bearer: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {bearer}"}


def _json(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _code(response: httpx2.Response) -> str | None:
    answer = _json(response)
    error = answer.get("error") if isinstance(answer, dict) else None
    return error.get("code") if isinstance(error, dict) else None
