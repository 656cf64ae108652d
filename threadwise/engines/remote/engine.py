"""A chat model on an OpenAI-compatible server: ``POST {url}/chat/completions``, streamed (SSE).

Requests run on the engine's own event loop (``loop``); a request whose deadline passes, or
whose caller went away, is cancelled, which closes its stream (the servers stop generating for
a closed connection). At most ``concurrency`` requests are in flight at once (``chat_many``
sends its chats side by side within that). A server that answers 429 or 503 is asked again
after its ``Retry-After`` (else an exponential backoff) while the deadline allows, then the
request is answered ``OVERLOADED``; connection failures open the circuit breaker (``health``),
after which requests fail at once until a probe finds the server again. ``exchange`` writes
each request and reads its answer.

What the embedded engine does with llama.cpp's state falls to the server: a prompt that
extends an earlier one is processed from where it differs by llama.cpp's prompt cache
(``cache_prompt``), vLLM's prefix caching, or llama-cpp-python's cache of its last prompt;
``keep`` asks for nothing more.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx2

from threadwise.config import RemoteEngine
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage, Completion, answer_starts
from threadwise.engines.metering import charge
from threadwise.engines.remote import servers
from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.engines.remote.exchange import Again, Ask, payload, read_answer
from threadwise.engines.remote.health import ServerHealth
from threadwise.engines.remote.loop import EngineLoop
from threadwise.engines.remote.prefill import EchoFilter
from threadwise.engines.remote.stream import error_message, retry_after
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

log = logging.getLogger(__name__)

Emit = Callable[[str], None]
# (prompt tokens, completion tokens, seconds, of which generating) of each call.
CallObserver = Callable[[int, int, float, float], None]

# Attempts at a request the server refused as busy (429, 503) or dropped before answering.
_ATTEMPTS = 5
_BACKOFF_SECONDS = 0.5
_BACKOFF_CEILING_SECONDS = 8.0
_CONNECT_SECONDS = 5.0
# A request without a deadline (reading the system prompt ahead at start) waits this long.
_NO_DEADLINE_SECONDS = 600.0
# Generation is capped at what the server's best measured speed could write in the time left,
# with this margin: a stream the caller no longer reads (a replica that died) ends soon after
# its deadline, and no answer the server could finish in time is cut.
_RATE_MARGIN = 1.5
_COUNTS_KEPT = 4096


class RemoteChatEngine:
    def __init__(
        self,
        server: RemoteEngine,
        *,
        context_size: int,
        breaker: CircuitBreaker,
        on_call: CallObserver | None = None,
    ) -> None:
        self._server = server
        parts = urlsplit(server.url)
        self.host = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)
        self._model = server.model
        self._context_size = server.context_size or context_size
        self.breaker = breaker
        self._on_call = on_call
        self._info: servers.ServerInfo | None = None
        self._loop = EngineLoop(self.host, self._open, self._shut)
        self._health = ServerHealth(self.host, breaker, self._probe)
        self._client: httpx2.AsyncClient | None = None
        self._slots = asyncio.Semaphore(server.concurrency)
        self._connecting = asyncio.Lock()
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._counts_lock = threading.Lock()
        # The fastest generation seen (tokens a second): the basis of the max_tokens cap.
        self._peak_rate = 0.0

    @property
    def name(self) -> str:
        return f"openai:{self._model or '?'}@{self.host}"

    @property
    def context_size(self) -> int:
        return self._context_size

    @property
    def unavailable(self) -> str | None:
        if not self.breaker.open:
            return None
        return f"the model server at {self.host} is not answering ({self.breaker.reason})"

    @property
    def server_kind(self) -> str | None:
        """What the server turned out to be (see ``servers``), once it answered."""
        return None if self._info is None else self._info.traits.kind

    def load(self) -> None:
        """Ask the server what it is. One that does not answer opens the breaker (requests
        fail at once, ``/readyz`` says why) rather than failing the start: it is probed
        until it answers."""
        try:
            self._loop.run(lambda _: self._connect(), None)
        except ServiceError as exc:
            log.warning("%s", exc.message)

    def close(self) -> None:
        self._loop.close()

    def count_tokens(self, text: str) -> int:
        """The server's tokenizer's count where it has one that does not wait for the model
        (see ``servers``), else an estimate that errs high."""
        info, client, loop = self._info, self._client, self._loop.running
        if info is None or info.traits.tokenizer is None or client is None or loop is None:
            return servers.estimate_tokens(text)
        if self.breaker.open:
            return servers.estimate_tokens(text)
        with self._counts_lock:
            known = self._counts.get(text)
            if known is not None:
                self._counts.move_to_end(text)
                return known
        counting = asyncio.run_coroutine_threadsafe(
            servers.count_tokens(client, self._server.url, info.traits, self._model, text), loop
        )
        try:
            count = counting.result(timeout=servers.PROBE_SECONDS + 1)
        except (httpx2.HTTPError, KeyError, TypeError, ValueError, TimeoutError) as exc:
            counting.cancel()
            log.debug("the model server's tokenizer failed (%s); estimating", exc)
            return servers.estimate_tokens(text)
        with self._counts_lock:
            self._counts[text] = count
            if len(self._counts) > _COUNTS_KEPT:
                self._counts.popitem(last=False)
        return count

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        max_tokens: int,
        deadline: Deadline | None = None,
        continue_from: str = "",
        keep: bool = False,
        stop: Sequence[str] = (),
        on_text: Callable[[str], None] | None = None,
    ) -> Completion:
        ask = Ask(list(messages), max_tokens, deadline, continue_from, tuple(stop))
        return self._loop.run(lambda emit: self._answer(ask, emit), deadline, on_text)

    def chat_many(
        self,
        chats: Sequence[list[ChatMessage]],
        *,
        max_tokens: Sequence[int],
        deadline: Deadline | None = None,
        continue_from: str | Sequence[str] = "",
        stops: Sequence[Sequence[str]] = (),
    ) -> list[Completion]:
        """The chats sent side by side (within ``concurrency``); the first failure cancels
        the others."""
        every_stop = list(stops) or [()] * len(chats)
        starts = answer_starts(continue_from, len(chats))
        asks = [
            Ask(list(chat), budget, deadline, start, tuple(stop))
            for chat, budget, start, stop in zip(chats, max_tokens, starts, every_stop, strict=True)
        ]
        return self._loop.run(lambda _: self._answer_all(asks), deadline)

    # --- the engine's loop: opened with the first request, shut by ``close`` -----------------

    async def _open(self) -> None:
        key = self._server.api_key
        self._client = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {key.get_secret_value()}"} if key else None,
            limits=httpx2.Limits(max_connections=self._server.concurrency + 8),
        )

    async def _shut(self) -> None:
        """Cancel what runs (the requests' callers hear of it) and close the connections."""
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
        if self._client is not None:
            await self._client.aclose()

    # --- a request ----------------------------------------------------------------------------

    async def _answer_all(self, asks: list[Ask]) -> list[Completion]:
        tasks = [asyncio.ensure_future(self._answer(ask, None)) for ask in asks]
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:
                task.cancel()  # those still running when one failed

    async def _answer(self, ask: Ask, emit: Emit | None) -> Completion:
        """Attempts until one answers, the attempts run out or the deadline would pass."""
        attempt = 0
        while True:
            if self.breaker.open:
                raise self._health.down()
            info = await self._connect()
            try:
                async with self._slots:
                    return await self._attempt(ask, info.traits, emit)
            except Again as again:
                attempt += 1
                backoff = min(_BACKOFF_CEILING_SECONDS, _BACKOFF_SECONDS * 2 ** (attempt - 1))
                wait = again.after if again.after is not None else random.uniform(0, backoff)
                if again.error.retry_after is None:
                    again.error.retry_after = max(wait, 1.0)
                left = ask.deadline.remaining() if ask.deadline else _NO_DEADLINE_SECONDS
                if attempt >= _ATTEMPTS or wait >= left:
                    raise again.error from None
                await asyncio.sleep(wait)

    def _token_cap(self, ask: Ask) -> int:
        if ask.deadline is None or self._peak_rate <= 0:
            return ask.max_tokens
        possible = math.ceil(ask.deadline.remaining() * self._peak_rate * _RATE_MARGIN) + 16
        return max(1, min(ask.max_tokens, possible))

    async def _attempt(
        self, ask: Ask, traits: servers.ServerTraits, emit: Emit | None
    ) -> Completion:
        assert self._client is not None
        body = payload(ask, traits, self._model, self._token_cap(ask))
        asked = ask.continue_from and traits.continues == "instruction"
        echo = EchoFilter(ask.continue_from) if asked else None
        left = ask.deadline.remaining() if ask.deadline else _NO_DEADLINE_SECONDS
        timeout = httpx2.Timeout(max(left, 0.001), connect=min(_CONNECT_SECONDS, max(left, 0.001)))
        started = time.perf_counter()
        written: list[str] = []
        try:
            async with self._client.stream(
                "POST", f"{self._server.url}/chat/completions", json=body, timeout=timeout
            ) as response:
                if response.status_code != 200:
                    await self._refused(response)
                completion = await self._read(response, ask, body, echo, emit, written, started)
                self.breaker.succeeded()
                return completion
        except httpx2.TimeoutException as exc:
            if not isinstance(exc, httpx2.ConnectTimeout):
                # The timeouts are what was left of the deadline.
                raise self._timed_out(ask) from None
            raise self._unreachable(f"no connection within {_CONNECT_SECONDS:g} s") from None
        except httpx2.TransportError as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if written and emit is not None:  # the caller saw part of it: not asked again
                self._health.failed(reason)
                raise ServiceError(
                    ErrorCode.PROCESSING_FAILED,
                    f"The model server at {self.host} dropped the answer mid-stream ({reason}). "
                    "Retry the request.",
                ) from None
            raise self._unreachable(reason) from None

    async def _read(
        self,
        response: httpx2.Response,
        ask: Ask,
        body: dict[str, Any],
        echo: EchoFilter | None,
        emit: Emit | None,
        written: list[str],
        started: float,
    ) -> Completion:
        """The answer, metered; ``written`` holds its text so far."""
        streamed = await read_answer(response, ask, echo, emit, written, self.host)
        first, last = streamed.first, streamed.last
        tokens = streamed.count("completion_tokens") or streamed.pieces
        if tokens > 8 and last > first:
            self._peak_rate = max(self._peak_rate, (tokens - 1) / (last - first))
        if streamed.finish == "length" and body["max_tokens"] < ask.max_tokens:
            raise self._timed_out(ask)  # cut at what the time left allowed
        prompt_tokens = streamed.count("prompt_tokens") or sum(
            servers.estimate_tokens(m["content"]) + 4 for m in body["messages"]
        )
        # On the engine's loop, in a copy of the calling thread's context
        # (run_coroutine_threadsafe takes one): the caller's meter.
        charge(prompt_tokens, tokens)
        if self._on_call is not None:
            self._on_call(prompt_tokens, tokens, time.perf_counter() - started, last - first)
        return Completion(
            text=(ask.continue_from + "".join(written)).strip(),
            prompt_tokens=prompt_tokens,
            completion_tokens=tokens,
            truncated=streamed.finish == "length",
        )

    async def _refused(self, response: httpx2.Response) -> None:
        """Raise what a status other than 200 means."""
        status = response.status_code
        said = f"{status}: {error_message(await response.aread())}"
        key = self._server.api_key
        if key is not None and key.get_secret_value():
            said = said.replace(key.get_secret_value(), "***")  # a server that echoes it
        if status in (429, 503):
            self.breaker.succeeded()  # alive, only busy
            after = retry_after(response.headers)
            raise Again(
                ServiceError(
                    ErrorCode.OVERLOADED,
                    f"The model server at {self.host} is busy ({said}); nothing was completed. "
                    "Retry after the time in the Retry-After header.",
                    retry_after=after,
                    reason="engine_busy",
                ),
                after,
            )
        if status in (502, 504):  # a proxy in front of it that cannot reach it
            raise self._unreachable(said)
        self.breaker.succeeded()
        if status in (401, 403):
            hint = "set the engine's api_key (THREADWISE_LLM_API_KEY, or its profile's)"
        elif status == 404:
            hint = (
                "check its url and model (THREADWISE_LLM_URL and THREADWISE_LLM_MODEL, "
                "or its profile's)"
            )
        else:
            hint = "retry the request"
        raise ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The model server at {self.host} refused the request ({said}); {hint}.",
        )

    def _timed_out(self, ask: Ask) -> ServiceError:
        if ask.deadline is not None:
            return ask.deadline.timeout_error()
        return ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The model server at {self.host} did not answer within {_NO_DEADLINE_SECONDS:g} s.",
        )

    # --- the server's health --------------------------------------------------------------

    async def _connect(self) -> servers.ServerInfo:
        """What the server is, asked once; raises ``OVERLOADED`` if it does not answer."""
        async with self._connecting:
            if self._info is None:
                assert self._client is not None
                try:
                    info = await servers.detect(self._client, self._server.url, self._server.server)
                except httpx2.TransportError as exc:
                    self._health.failed(f"{type(exc).__name__}: {exc}", trip=True)
                    raise self._health.down() from None
                self._model = self._model or next(iter(info.models), "")
                if self._server.context_size is None and info.context_size:
                    self._context_size = info.context_size
                self._info = info
                log.info(
                    "model server at %s: %s, model %s, context %d tokens",
                    self.host,
                    info.traits.kind,
                    self._model or "(its default)",
                    self._context_size,
                )
            return self._info

    def _unreachable(self, reason: str) -> Again:
        self._health.failed(reason)
        return Again(self._health.down(reason))

    async def _probe(self) -> bool:
        assert self._client is not None
        return await servers.answers(self._client, self._server.url)
