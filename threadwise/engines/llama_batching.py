"""Continuous batching: sequences from any thread decoded side by side on one llama.cpp
context, each joining and leaving between decode steps (as llama.cpp's server and vLLM do).

Generating a token reads all of the model's weights; generating one for each of several
sequences in one batch reads them once (``llama_parallel``: 38-55 ms a token alone, 28-32 ms
each for four). So while one request's summary is written, another's joins the same decode
steps instead of waiting for the model. One thread (``ContinuousBatcher``) owns the context:

- a newcomer takes a free sequence; the cells of the longest prompt prefix it shares with a
  running sequence, or with a finished one whose cells are kept, are shared, not evaluated
  again (the system prompt and instructions of every call);
- its prompt is evaluated in chunks of at most ``PROMPT_CHUNK`` tokens a step, in the same
  batch as the others' next tokens, so a long prompt does not stall them;
- a sequence whose deadline passed, or whose request was cancelled, leaves at the next step
  and its cells are freed; one that ends (end of generation, a stop string, its token budget)
  hands its answer back, and its prompt's cells stay for a later prompt that shares them,
  until the room is needed.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from threadwise.deadlines import Deadline
from threadwise.engines.llama_parallel import add_token
from threadwise.engines.prefix_states import common_prefix

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger(__name__)

# Prompt tokens evaluated in one step beside the others' next tokens: a step of 128 costs
# about what 1.5 s of generation steps do on two cores, not the whole prompt's time.
PROMPT_CHUNK = 128
# Cells kept free beyond what the admitted sequences may need.
SLACK = 16


@dataclass(frozen=True)
class Finished:
    """A sequence's answer: its text (before any stop string), tokens, and times."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    truncated: bool
    seconds: float  # from submission to the last token
    generating: float  # from the first answer token to the last


@dataclass(eq=False)
class _Sequence:
    prompt: list[int]
    max_tokens: int
    stops: Sequence[str]
    deadline: Deadline | None
    on_text: Callable[[str], None] | None
    future: Future[Finished]
    submitted: float
    slot: int = -1
    fed: int = 0  # prompt tokens in the context
    tokens: list[int] = field(default_factory=list)
    text: str = ""
    sent: int = 0  # characters of text handed to on_text
    next_token: int = -1
    logits_at: int = -1  # this step's batch index of its logits, or -1
    first_token: float | None = None
    truncated: bool = False

    @property
    def prefilling(self) -> bool:
        return self.fed < len(self.prompt)

    @property
    def cells(self) -> int:
        """The most cells it may take: its prompt and its whole answer."""
        return len(self.prompt) + self.max_tokens


class ContinuousBatcher:
    """The thread that decodes every submitted sequence (see the module's docstring).

    ``fit_threads`` is called before each decode (the engine fits its thread count to the
    cores other work leaves it)."""

    def __init__(
        self,
        llm: Llama,
        slots: int,
        fit_threads: Callable[[], None] = lambda: None,
        nice: int = 0,
    ) -> None:
        self._llm = llm
        self._nice = nice
        self._slots = slots
        self._fit_threads = fit_threads
        self._cells = llm.n_ctx()
        self._cond = threading.Condition()
        self._pending: list[_Sequence] = []
        self._active: list[_Sequence] = []
        # Free slots whose cells still hold a finished prompt: slot -> its tokens.
        self._kept: dict[int, list[int]] = {}
        self._order = itertools.count()
        self._used: dict[int, int] = {}  # slot -> when last given out, for eviction
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="llm-batcher", daemon=True)
        self._thread.start()

    # --- what callers use -------------------------------------------------------------------

    def submit(
        self,
        prompt: list[int],
        max_tokens: int,
        stops: Sequence[str] = (),
        deadline: Deadline | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Future[Finished]:
        """Queue a prompt for an answer of at most ``max_tokens`` (greedy), ending before
        any of ``stops``; ``on_text`` gets the answer's text as it grows (from the batcher's
        thread)."""
        if not prompt:
            raise ValueError("an empty prompt")
        if len(prompt) + max_tokens + SLACK > self._cells:
            raise ValueError(
                f"Requested tokens ({len(prompt)} + {max_tokens}) exceed context window of "
                f"{self._cells}"
            )
        future: Future[Finished] = Future()
        sequence = _Sequence(
            list(prompt), max_tokens, stops, deadline, on_text, future, time.perf_counter()
        )
        with self._cond:
            if self._closed:
                raise RuntimeError("the batcher is closed")
            self._pending.append(sequence)
            self._cond.notify()
        return future

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=30)

    # --- the loop ---------------------------------------------------------------------------

    def _loop(self) -> None:
        import llama_cpp

        if self._nice:
            # Below the event loop and the fast engines, as the model's queue workers are.
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self._nice)
            except OSError as exc:
                log.warning("could not lower the batcher's priority: %s", exc)

        batch = llama_cpp.llama_batch_init(PROMPT_CHUNK + self._slots, 0, 1)
        try:
            while True:
                with self._cond:
                    while not self._closed and not self._pending and not self._active:
                        self._cond.wait()
                    if self._closed:
                        failed = [*self._pending, *self._active]
                        self._pending.clear()
                        self._active.clear()
                        break
                    self._admit()
                try:
                    self._step(batch)
                except Exception as exc:  # the context is reset; every sequence fails
                    log.exception("continuous batching failed")
                    self._fail_all(exc)
        finally:
            llama_cpp.llama_batch_free(batch)
        for sequence in failed:
            if not sequence.future.done():
                sequence.future.set_exception(RuntimeError("the model is shutting down"))

    def _admit(self) -> None:
        """Give pending sequences free slots while the context has room (called locked)."""
        import llama_cpp

        memory = llama_cpp.llama_get_memory(self._llm.ctx)
        for waiting in list(self._pending):  # a request cancelled while it waited leaves now
            if waiting.deadline is not None and waiting.deadline.stop_requested():
                self._pending.remove(waiting)
                waiting.future.set_exception(_deadline_error(waiting.deadline))
        while self._pending:
            free = [s for s in range(self._slots) if s not in {a.slot for a in self._active}]
            if not free:
                return
            sequence = self._pending[0]
            need = sequence.cells + sum(a.cells for a in self._active)
            kept = sum(len(t) for t in self._kept.values())
            if need + kept + SLACK > self._cells:
                # Room first from the finished prompts kept, least recently used first.
                for slot in sorted(self._kept, key=lambda s: self._used.get(s, 0)):
                    llama_cpp.llama_memory_seq_rm(memory, slot, -1, -1)
                    kept -= len(self._kept.pop(slot))
                    if need + kept + SLACK <= self._cells:
                        break
                if need + kept + SLACK > self._cells:
                    return  # it waits for a running sequence to end
            self._pending.pop(0)
            self._place(sequence, free, memory)
            self._active.append(sequence)

    def _place(self, sequence: _Sequence, free: list[int], memory: Any) -> None:
        """Put ``sequence`` in a free slot, sharing the longest prefix held anywhere."""
        import llama_cpp

        prompt = np.asarray(sequence.prompt, dtype=np.intc)
        holders = {a.slot: a.prompt[: a.fed] for a in self._active} | self._kept
        best_slot, best = -1, 0
        for slot, tokens in holders.items():
            shared = common_prefix(np.asarray(tokens, dtype=np.intc), prompt)
            if shared > best:
                best_slot, best = slot, shared
        best = min(best, len(sequence.prompt) - 1)  # its last token gives the first logits
        # A kept slot that holds the prefix is taken as it is; else the emptiest free one.
        slot = (
            best_slot if best_slot in free else min(free, key=lambda s: len(self._kept.get(s, [])))
        )
        if slot != best_slot:
            llama_cpp.llama_memory_seq_rm(memory, slot, -1, -1)
            if best > 0:
                llama_cpp.llama_memory_seq_cp(memory, best_slot, slot, 0, best)
        else:
            llama_cpp.llama_memory_seq_rm(memory, slot, best, -1)
        self._kept.pop(slot, None)
        self._used[slot] = next(self._order)
        sequence.slot, sequence.fed = slot, best

    def _step(self, batch: Any) -> None:
        """One decode: every generating sequence's next token, and up to ``PROMPT_CHUNK``
        prompt tokens of the sequences still reading theirs."""
        import llama_cpp

        with self._cond:
            active = list(self._active)
        for sequence in active:
            if sequence.deadline is not None and sequence.deadline.stop_requested():
                self._end(sequence, error=_deadline_error(sequence.deadline))
        with self._cond:
            active = list(self._active)
        if not active:
            return
        batch.n_tokens = 0

        def add(token: int, position: int, slot: int, logits: bool) -> int:
            return add_token(batch, token, position, slot, logits)

        for sequence in active:
            sequence.logits_at = -1
            if not sequence.prefilling:
                position = len(sequence.prompt) + len(sequence.tokens) - 1
                sequence.logits_at = add(sequence.tokens[-1], position, sequence.slot, True)
        # Never past the context's batch size (llama.cpp aborts the process beyond it).
        budget = min(PROMPT_CHUNK, self._llm.n_batch - batch.n_tokens)
        for sequence in active:
            while sequence.prefilling and budget > 0:
                last = sequence.fed == len(sequence.prompt) - 1
                index = add(sequence.prompt[sequence.fed], sequence.fed, sequence.slot, last)
                if last:
                    sequence.logits_at = index
                sequence.fed += 1
                budget -= 1
        self._fit_threads()
        if llama_cpp.llama_decode(self._llm.ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")
        n_vocab = self._llm.n_vocab()
        vocab = self._llm._model.vocab
        for sequence in active:
            if sequence.logits_at < 0:
                continue
            logits = np.ctypeslib.as_array(
                llama_cpp.llama_get_logits_ith(self._llm.ctx, sequence.logits_at), (n_vocab,)
            )
            token = int(np.argmax(logits))
            if sequence.first_token is None:
                sequence.first_token = time.perf_counter()
            try:
                ended = self._accept(sequence, token, vocab)
            except Exception as exc:  # its on_text failed: it alone ends
                self._end(sequence, error=exc)
                continue
            if ended:
                self._end(sequence)

    def _accept(self, sequence: _Sequence, token: int, vocab: Any) -> bool:
        """Take the sequence's next token; True when it has ended."""
        import llama_cpp

        if llama_cpp.llama_vocab_is_eog(vocab, token):
            return True
        if len(sequence.tokens) >= sequence.max_tokens:
            sequence.truncated = True
            return True
        sequence.tokens.append(token)
        text = self._llm.detokenize(sequence.tokens).decode("utf-8", errors="ignore")
        ended = False
        for stop in sequence.stops:
            at = text.find(stop)
            if at >= 0:
                text, ended = text[:at], True
        sequence.text = text
        if sequence.on_text is not None:
            # Held back: what could still be the start of a stop string.
            hold = 0 if ended else max((len(s) - 1 for s in sequence.stops), default=0)
            ready = len(text) - hold
            if ready > sequence.sent:
                sequence.on_text(text[sequence.sent : ready])
                sequence.sent = ready
        return ended

    def _end(self, sequence: _Sequence, error: BaseException | None = None) -> None:
        """The sequence leaves: its answer (or ``error``) handed back, its answer's cells
        freed and its prompt's kept (all of them, after an error)."""
        import llama_cpp

        memory = llama_cpp.llama_get_memory(self._llm.ctx)
        with self._cond:
            self._active.remove(sequence)
            if error is None and not sequence.prefilling:
                llama_cpp.llama_memory_seq_rm(memory, sequence.slot, len(sequence.prompt), -1)
                self._kept[sequence.slot] = sequence.prompt
            else:
                llama_cpp.llama_memory_seq_rm(memory, sequence.slot, -1, -1)
            self._cond.notify()
        if sequence.on_text is not None and error is None and len(sequence.text) > sequence.sent:
            try:
                sequence.on_text(sequence.text[sequence.sent :])
            except Exception as exc:  # handed to the waiting caller
                error = exc
        if error is not None:
            sequence.future.set_exception(error)
            return
        ended = time.perf_counter()
        first = sequence.first_token or ended
        sequence.future.set_result(
            Finished(
                sequence.text,
                len(sequence.prompt),
                len(sequence.tokens),
                sequence.truncated,
                ended - sequence.submitted,
                ended - first,
            )
        )

    def _fail_all(self, exc: Exception) -> None:
        import llama_cpp

        with self._cond:
            failed = list(self._active)
            self._active.clear()
            self._kept.clear()
            llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(self._llm.ctx), True)
            self._llm.n_tokens = 0
        for sequence in failed:
            sequence.future.set_exception(exc)


def _deadline_error(deadline: Deadline) -> BaseException:
    """What the deadline's check raises now (passed, or cancelled)."""
    try:
        deadline.check()
    except BaseException as exc:  # handed to the waiting caller
        return exc
    return RuntimeError("stopped")
