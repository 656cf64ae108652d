"""Saved llama.cpp states of long prompts, so that a later prompt extending one (the same
thread with new messages) is processed only from where it differs.

llama.cpp keeps the KV cache of the last evaluated tokens only; another request in between
loses it. Each state here is one sequence's KV cells (~28 KB a token with the default model)
with its tokens, and nothing else: llama-cpp-python's own LlamaRAMCache also copies a logits
buffer its size limit does not count (9.3 GB resident, measured). The total is bounded in
bytes; the least recently used state goes first.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger(__name__)

Tokens = npt.NDArray[np.intc]


@dataclass(frozen=True)
class SavedState:
    tokens: Tokens
    data: bytearray

    @property
    def size(self) -> int:
        return len(self.data) + self.tokens.nbytes


def common_prefix(a: Tokens, b: Tokens) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


class PrefixStates:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._states: OrderedDict[int, SavedState] = OrderedDict()
        self._ids = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return sum(s.size for s in self._states.values())

    def __len__(self) -> int:
        return len(self._states)

    def best(self, prompt: Tokens, better_than: int) -> tuple[SavedState, int] | None:
        """The state sharing the longest prefix with ``prompt``, if longer than
        ``better_than`` tokens, with the length shared."""
        with self._lock:
            found: tuple[int, int] | None = None
            for key, state in self._states.items():
                shared = common_prefix(state.tokens, prompt)
                if shared > better_than and (found is None or shared > found[1]):
                    found = (key, shared)
            if found is None:
                return None
            self._states.move_to_end(found[0])
            return self._states[found[0]], found[1]

    def save(self, state: SavedState) -> None:
        """Keep ``state``; states it extends are dropped (it holds all they held)."""
        if state.size > self.max_bytes:
            return
        with self._lock:
            for key, old in list(self._states.items()):
                if common_prefix(old.tokens, state.tokens) == len(old.tokens):
                    del self._states[key]
            self._ids += 1
            self._states[self._ids] = state
            total = sum(s.size for s in self._states.values())
            while total > self.max_bytes:
                _, dropped = self._states.popitem(last=False)
                total -= dropped.size


def restore_state(llm: Llama, state: SavedState) -> None:
    """Put ``state`` in ``llm``'s context (emptied if that fails), to process a prompt from
    where it differs."""
    import llama_cpp

    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(llm.ctx), True)
    buffer = (ctypes.c_uint8 * len(state.data)).from_buffer(state.data)
    if llama_cpp.llama_state_seq_set_data(llm.ctx, buffer, len(state.data), 0) == 0:
        log.warning("a saved prompt state could not be restored; processing the prompt")
        llm.n_tokens = 0  # the memory is empty: the whole prompt is processed
        return
    count = len(state.tokens)
    llm.input_ids[:count] = state.tokens
    llm.n_tokens = count
    # llama-cpp-python then processes the prompt from the first token that differs.
    llm._requires_eval = True


def read_state(llm: Llama, max_bytes: int) -> SavedState | None:
    """The state of ``llm``'s context, unless larger than ``max_bytes`` or unreadable."""
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
    if size > max_bytes:
        return None
    data = bytearray(size)
    buffer = (ctypes.c_uint8 * size).from_buffer(data)
    written = llama_cpp.llama_state_seq_get_data(llm.ctx, buffer, size, 0)
    if written == 0:
        return None
    del buffer  # a bytearray cannot be resized while exported
    del data[written:]
    tokens = np.array(llm.input_ids[: llm.n_tokens], dtype=np.intc)
    return SavedState(tokens, data)
