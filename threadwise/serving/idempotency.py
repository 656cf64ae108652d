"""Idempotency keys (`docs/protocol/interface.md` §10): a repeated key from the same
organization gets the first request's answer, without the work being done twice.

A key is claimed before the work starts. A second request with the key waits while the first
runs, then gets its answer; if the first gave up (cancelled, or a retryable error such as
``OVERLOADED``), the second claims the key and does the work. A key sent again with a
different request is refused (422), as Stripe does. Kept in the process by default, or in
Redis, where a claim is a ``SET NX`` with a short time to live that its request renews
while it runs (``renew``): a replica killed mid-request lets go of its keys within one lease,
and a client's retry with the key then does the work. Waiters poll.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import redis

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.shared_redis import OutageWarning, connect

log = logging.getLogger(__name__)

MAX_KEY_LENGTH = 256
_POLL_FIRST, _POLL_MAX = 0.02, 0.25


@dataclass(frozen=True)
class Claim:
    """Either the stored ``answer`` of an earlier request, or the right to do the work
    (``owner``), to be ended with ``complete`` or ``release``."""

    scope: str
    key: str
    fingerprint: str
    owner: str | None = None
    answer: Any | None = None
    waited: bool = False


def check_key(key: str, where: str) -> str:
    key = key.strip()
    if not key or len(key) > MAX_KEY_LENGTH:
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"{where} must be a non-empty string of at most {MAX_KEY_LENGTH} characters, "
            f"got {len(key)} characters.",
        )
    return key


def reused_key(key: str) -> ServiceError:
    return ServiceError(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
        f"The idempotency key {key[:64]!r} was already used with a different request. "
        "Send a new key for a new request; resend a request exactly to get its answer again.",
    )


class IdempotencyStore(ABC):
    def __init__(self, ttl_seconds: float) -> None:
        self.ttl_seconds = ttl_seconds

    async def claim(
        self, scope: str, key: str, fingerprint: str, wait_seconds: float, lease_seconds: float
    ) -> Claim:
        """The stored answer for ``scope``/``key``, waiting up to ``wait_seconds`` for a
        request still running with it; else a claim held for at most ``lease_seconds``."""
        owner = uuid.uuid4().hex
        give_up = time.monotonic() + wait_seconds
        pause = _POLL_FIRST
        waited = False
        while True:
            state = await self._try_claim(scope, key, fingerprint, owner, lease_seconds)
            if state is None:
                return Claim(scope, key, fingerprint, owner=owner, waited=waited)
            stored_fingerprint, answer = state
            if stored_fingerprint != fingerprint:
                raise reused_key(key)
            if answer is not None:
                return Claim(scope, key, fingerprint, answer=answer, waited=waited)
            if time.monotonic() >= give_up:
                raise ServiceError(
                    ErrorCode.REQUEST_TIMEOUT,
                    f"A request with the idempotency key {key[:64]!r} is still running. "
                    "Retry later to get its answer.",
                )
            waited = True
            await asyncio.sleep(pause)
            pause = min(pause * 2, _POLL_MAX)

    @abstractmethod
    async def _try_claim(
        self, scope: str, key: str, fingerprint: str, owner: str, lease_seconds: float
    ) -> tuple[str, Any | None] | None:
        """Claim the key for ``owner`` (None), or say what holds it: its fingerprint and its
        answer (None while it runs)."""

    @abstractmethod
    async def complete(self, claim: Claim, answer: Any) -> None:
        """Store the answer of the claimed request, for ``ttl_seconds``."""

    @abstractmethod
    async def release(self, claim: Claim) -> None:
        """Give the key up without an answer: the next request with it does the work."""

    @abstractmethod
    async def renew(self, claim: Claim, lease_seconds: float) -> bool:
        """Hold the running claim ``lease_seconds`` more; False if it is no longer held."""

    @abstractmethod
    def close(self) -> None:
        """Release connections, if any."""


@dataclass
class _Entry:
    fingerprint: str
    owner: str
    expires: float
    answer: Any | None = None


class InProcessIdempotencyStore(IdempotencyStore):
    def __init__(self, ttl_seconds: float, max_entries: int) -> None:
        super().__init__(ttl_seconds)
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()

    async def _try_claim(
        self, scope: str, key: str, fingerprint: str, owner: str, lease_seconds: float
    ) -> tuple[str, Any | None] | None:
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get((scope, key))
            if entry is not None and entry.expires > now:
                return entry.fingerprint, entry.answer
            self._entries[(scope, key)] = _Entry(fingerprint, owner, now + lease_seconds)
            self._entries.move_to_end((scope, key))
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
            return None

    async def complete(self, claim: Claim, answer: Any) -> None:
        with self._lock:
            entry = self._entries.get((claim.scope, claim.key))
            if entry is not None and entry.owner == claim.owner:
                entry.answer = json.loads(json.dumps(answer))
                entry.expires = time.monotonic() + self.ttl_seconds

    async def release(self, claim: Claim) -> None:
        with self._lock:
            entry = self._entries.get((claim.scope, claim.key))
            if entry is not None and entry.owner == claim.owner and entry.answer is None:
                del self._entries[(claim.scope, claim.key)]

    async def renew(self, claim: Claim, lease_seconds: float) -> bool:
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get((claim.scope, claim.key))
            if entry is None or entry.owner != claim.owner or entry.answer is not None:
                return False
            entry.expires = max(entry.expires, now + lease_seconds)
            return True

    def close(self) -> None:
        """Nothing to release."""


# KEYS[1]: the key; ARGV: owner, value, ttl ms. Only the owner of a claim ends it.
_COMPLETE = """
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current)['owner'] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""
_RELEASE = """
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local entry = cjson.decode(current)
if entry['owner'] ~= ARGV[1] or entry['state'] ~= 'running' then return 0 end
return redis.call('DEL', KEYS[1])
"""
# ARGV: owner, lease ms. 1 if the owner still runs it (and holds it longer).
_RENEW = """
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local entry = cjson.decode(current)
if entry['owner'] ~= ARGV[1] or entry['state'] ~= 'running' then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""


class RedisIdempotencyStore(IdempotencyStore):
    """Shared by every replica. Redis unreachable: the request runs without idempotency (and
    a warning is logged), rather than failing."""

    def __init__(self, url: str, ttl_seconds: float, prefix: str = "threadwise:idem:") -> None:
        super().__init__(ttl_seconds)
        self._client = connect(url)
        self._complete = self._client.register_script(_COMPLETE)
        self._release = self._client.register_script(_RELEASE)
        self._renew = self._client.register_script(_RENEW)
        self._prefix = prefix
        self._outage = OutageWarning(log, "idempotency keys not applied")

    def _name(self, scope: str, key: str) -> str:
        return f"{self._prefix}{scope}:{key}"

    async def _try_claim(
        self, scope: str, key: str, fingerprint: str, owner: str, lease_seconds: float
    ) -> tuple[str, Any | None] | None:
        running = json.dumps({"state": "running", "owner": owner, "fingerprint": fingerprint})
        name = self._name(scope, key)

        def attempt() -> tuple[str, Any | None] | None:
            lease_ms = max(1, round(lease_seconds * 1000))
            for _ in range(3):
                if self._client.set(name, running, nx=True, px=lease_ms):
                    return None
                current = self._client.get(name)
                if current is not None:
                    entry = json.loads(current)
                    return entry["fingerprint"], entry.get("answer")
                # It expired or was released between the two calls: claim it again.
            return None

        try:
            return await anyio.to_thread.run_sync(attempt)
        except redis.RedisError as exc:
            self._outage.warn(exc)
            return None

    async def complete(self, claim: Claim, answer: Any) -> None:
        assert claim.owner is not None
        value = json.dumps(
            {
                "state": "done",
                "owner": claim.owner,
                "fingerprint": claim.fingerprint,
                "answer": answer,
            }
        )
        await self._script(self._complete, claim, value)

    async def release(self, claim: Claim) -> None:
        await self._script(self._release, claim)

    async def renew(self, claim: Claim, lease_seconds: float) -> bool:
        assert claim.owner is not None
        args: list[str | int] = [claim.owner, max(1, round(lease_seconds * 1000))]
        name = self._name(claim.scope, claim.key)
        try:
            held = await anyio.to_thread.run_sync(lambda: self._renew(keys=[name], args=args))
        except redis.RedisError as exc:
            self._outage.warn(exc)
            return True  # not known to be lost: the work goes on, as without Redis
        return bool(held)

    async def _script(self, script: Any, claim: Claim, value: str = "") -> None:
        args = [claim.owner, value, max(1, round(self.ttl_seconds * 1000))]
        try:
            await anyio.to_thread.run_sync(
                lambda: script(keys=[self._name(claim.scope, claim.key)], args=args)
            )
        except redis.RedisError as exc:
            self._outage.warn(exc)

    def close(self) -> None:
        self._client.close()
