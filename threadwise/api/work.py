"""Run a superpower for a REST request: its scope, its idempotency key, and its client.

A client that drops the connection cancels its work: a queued job leaves the queue at once,
a running one stops at its next deadline check.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from fastapi import Request

from threadwise.api.records import record_of
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.serving.admission import Admitted
from threadwise.serving.context import ServingContext
from threadwise.serving.idempotency import check_key
from threadwise.serving.operations import Results

log = logging.getLogger("threadwise.api")

T = TypeVar("T")

IDEMPOTENCY_HEADER = "Idempotency-Key"


class ClientGone(Exception):
    """The client closed the connection before its answer was ready."""


async def run_operation(request: Request, admitted: Admitted) -> Results:
    key = request.headers.get(IDEMPOTENCY_HEADER)
    record = record_of(request)
    serving: ServingContext = request.app.state.serving
    work = serving.operations.run(
        admitted.operation,
        admitted.body,
        tenant=admitted.caller.claims.tenant,
        record=record,
        idempotency_key=check_key(key, f"The {IDEMPOTENCY_HEADER} header") if key else None,
        charged=admitted.characters,
    )
    try:
        return await while_connected(request, work)
    except ClientGone:
        record.failed_with(
            ServiceError(ErrorCode.REQUEST_CANCELLED, "The client went away.", reason="client_gone")
        )
        raise


async def while_connected(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """Await ``work``, cancelling it if the client disconnects first."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        watcher.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, ServiceError):
        await task
    raise ClientGone


async def _disconnected(request: Request) -> None:
    # The body has been read: the next message is the disconnect, when it comes.
    while (await request.receive())["type"] != "http.disconnect":
        pass
