"""The model tokens a request's work spends, counted wherever that work runs.

A request starts a ``Meter`` with ``metering()``; engines ``charge`` what each model call
spends. The meter travels in a context variable: asyncio tasks and ``anyio.to_thread`` carry
it, and so does the ``Scheduler``, which runs each job in the context it was submitted from.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Meter:
    """Prompt and completion tokens, added to from any thread."""

    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._lock = threading.Lock()

    def add(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens


_current: ContextVar[Meter | None] = ContextVar("threadwise_meter", default=None)


@contextmanager
def metering() -> Iterator[Meter]:
    """A new meter, charged by the model calls of the work inside (and the work it starts)."""
    meter = Meter()
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)


def charge(prompt_tokens: int, completion_tokens: int) -> None:
    """Add a model call's tokens to the current meter; work outside one is not counted."""
    meter = _current.get()
    if meter is not None:
        meter.add(prompt_tokens, completion_tokens)
