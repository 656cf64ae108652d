"""How many cores the model may use right now.

llama.cpp splits each decode across its threads and waits for the slowest: when any other
work holds a core (the fast translation engines, their Apertium processes), two model threads
run 6-8x slower than one (measured on a 2-core machine). So the model asks before each decode
call, and takes every configured thread only while nothing else of the service is running.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class CoreShare:
    """Counts the jobs that compete with the model for cores."""

    def __init__(self, model_threads: int) -> None:
        self.model_threads = model_threads
        self._busy = 0
        self._lock = threading.Lock()

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Hold while running work that needs a core of its own."""
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    @property
    def others(self) -> int:
        return self._busy

    def threads_for_model(self) -> int:
        """All configured threads when nothing else runs, else leave a core to the others."""
        if self._busy == 0:
            return self.model_threads
        return max(1, self.model_threads - self._busy)
