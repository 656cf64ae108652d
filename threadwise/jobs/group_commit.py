"""Group commit: what callers hand in while a write is under way goes in the next write,
together, as a database does with the commits of concurrent transactions.

A lone caller is written at once (no window to wait out); under a burst, one statement and
one round trip carry many items instead of one each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Write = Callable[[Sequence[T]], Awaitable[Sequence[R]]]


class GroupCommit(Generic[T, R]):
    """``await add(item)`` → its result from ``write(items)``, which takes at most
    ``max_items`` at a time and answers one result per item, in order. A write that raises
    raises in each of its callers."""

    def __init__(self, write: Write[T, R], *, max_items: int = 100) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be at least 1, got {max_items}")
        self._write = write
        self.max_items = max_items
        self._waiting: list[tuple[T, asyncio.Future[R]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def add(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_all(), name="group commit")
        # A caller that goes away (its client disconnected) leaves its item to be written:
        # the writer, not the caller, owns the write.
        return await asyncio.shield(future)

    async def _write_all(self) -> None:
        while self._waiting:
            group = self._waiting[: self.max_items]
            del self._waiting[: self.max_items]
            try:
                results = await self._write([item for item, _ in group])
                if len(results) != len(group):
                    raise RuntimeError(f"{len(results)} results written for {len(group)} items")
            except asyncio.CancelledError:
                # The loop is closing: nobody is left to write for these callers.
                for _, future in [*group, *self._waiting]:
                    future.cancel()
                self._waiting.clear()
                raise
            except Exception as exc:
                for _, future in group:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), result in zip(group, results, strict=True):
                if not future.done():
                    future.set_result(result)
