"""Which batch a fast job joins: the one this replica has open, until it holds ``max_jobs``
or has been open ``max_seconds``, then a new one.

A batch is run by one task of the queue (``JobQueue.defer(batch_id)``), so every job that
joins a batch before its task starts shares that task's claim, end and deliveries. Under a
backlog, when tasks wait, batches fill; on an idle queue, a task starts at once and jobs that
join its batch after its claim are run by the next task of the same batch (the queue's lock
keeps the two apart, and a task is queued again for them), so none is left behind.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable


def new_batch_id() -> str:
    return f"bat_{secrets.token_hex(16)}"


class OpenBatch:
    """The batch jobs join now."""

    def __init__(
        self,
        *,
        max_jobs: int = 64,
        max_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_jobs < 1:
            raise ValueError(f"max_jobs must be at least 1, got {max_jobs}")
        self.max_jobs = max_jobs
        self.max_seconds = max_seconds
        self._clock = clock
        self._id = ""
        self._jobs = 0
        self._opened = 0.0

    def join(self, jobs: int) -> str:
        """The batch ``jobs`` more join (a new one if they would overfill it)."""
        now = self._clock()
        if (
            not self._id
            or self._jobs + jobs > self.max_jobs
            or now - self._opened >= self.max_seconds
        ):
            self._id, self._jobs, self._opened = new_batch_id(), 0, now
        self._jobs += jobs
        return self._id
