"""Several prompts that share a prefix, decoded side by side on one llama.cpp context.

On a CPU, generating one token reads all the model's weights; generating one token for each
of four sequences in the same batch reads them once. Measured on two cores with the default
model: one sequence 38-55 ms a token, four 110-130 ms a step (28-32 ms a token), six and eight
28-36 ms a token. The shared
prefix (system prompt, instructions) sits once in the KV cache and is shared by every
sequence (``kv_unified``); each sequence then gets its own suffix and its own answer,
greedily decoded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from threadwise.deadlines import Deadline
from threadwise.engines.prefix_states import common_prefix

if TYPE_CHECKING:
    from llama_cpp import Llama

# Sequences a context is created for: the most decoded side by side. Eight: a summary's
# aspects are up to seven lines written at once (measured against four on six support chats:
# all aspects 1.22x the paragraph's time, median, against 1.34x).
MAX_SEQUENCES = 8
# Cells of the context kept free beyond what the prompts and answers of a round need.
SLACK = 16


def rounds(
    prompts: Sequence[Sequence[int]],
    budgets: Sequence[int],
    context: int,
    most: int = MAX_SEQUENCES,
) -> list[list[int]]:
    """The prompts (by index, in order) in rounds decoded side by side: at most ``most`` a
    round, and no more than the context holds: their shared prefix once, then each one's
    suffix and answer (``budgets``: its most tokens). A prompt too long to share the context
    with another goes alone (the one-prompt path fits it as it can)."""
    groups: list[list[int]] = []
    first: np.ndarray[Any, np.dtype[np.intc]] | None = None
    shared = used = 0
    for index, (prompt, budget) in enumerate(zip(prompts, budgets, strict=True)):
        tokens = np.asarray(prompt, dtype=np.intc)
        if groups and first is not None and len(groups[-1]) < most:
            common = min(shared, common_prefix(first, tokens))
            # Fewer shared tokens: each earlier member holds its own copy of the difference.
            need = used + (shared - common) * (len(groups[-1]) - 1) + len(tokens) - common
            if need + budget + SLACK <= context:
                groups[-1].append(index)
                shared, used = common, need + budget
                continue
        groups.append([index])
        first, shared, used = tokens, len(tokens), len(tokens) + budget
    return groups


@dataclass
class _Sequence:
    prompt: list[int]
    max_tokens: int
    stop: Sequence[str]
    tokens: list[int]
    text: str = ""
    next_token: int = -1
    done: bool = False
    truncated: bool = False


@dataclass(frozen=True)
class Generated:
    text: str
    completion_tokens: int
    truncated: bool


def decode_side_by_side(
    llm: Llama,
    prompts: Sequence[list[int]],
    shared: int,
    max_tokens: Sequence[int],
    stops: Sequence[Sequence[str]],
    deadline: Deadline | None,
) -> list[Generated]:
    """Answer each prompt; the first ``shared`` tokens of every prompt are the same and are
    already in sequence 0 of the context (``llm.n_tokens == shared``; anything after them is
    dropped). Leaves the context holding just those ``shared`` tokens in sequence 0."""
    import llama_cpp

    assert 0 < len(prompts) <= MAX_SEQUENCES
    assert all(len(p) > shared for p in prompts), "every prompt needs a token of its own"
    context = llm.ctx
    memory = llama_cpp.llama_get_memory(context)
    vocab = llm._model.vocab
    n_vocab = llm.n_vocab()
    capacity = max(llm.n_batch, len(prompts))
    batch = llama_cpp.llama_batch_init(capacity, 0, 1)
    sequences = [
        _Sequence(list(p), m, s, []) for p, m, s in zip(prompts, max_tokens, stops, strict=True)
    ]

    def add(token: int, position: int, sequence: int, logits: bool) -> int:
        return add_token(batch, token, position, sequence, logits)

    def decode() -> None:
        if deadline is not None:
            deadline.check()
        if llama_cpp.llama_decode(context, batch) != 0:
            raise RuntimeError("llama_decode failed")

    def best(index: int) -> int:
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(context, index), (n_vocab,))
        return int(np.argmax(logits))

    try:
        # What the context held past the shared prefix (a longer earlier prompt) goes.
        llama_cpp.llama_memory_seq_rm(memory, 0, shared, -1)
        for number in range(1, len(sequences)):
            llama_cpp.llama_memory_seq_rm(memory, number, -1, -1)
            llama_cpp.llama_memory_seq_cp(memory, 0, number, 0, shared)
        # Each suffix, in batches of at most ``capacity`` tokens; a sequence's first answer
        # token comes from the logits of its prompt's last token.
        pending: list[tuple[int, int]] = []  # (sequence, batch index) of a last prompt token
        batch.n_tokens = 0
        for number, sequence in enumerate(sequences):
            for position in range(shared, len(sequence.prompt)):
                if batch.n_tokens == capacity:
                    decode()
                    _take(sequences, pending, best)
                    batch.n_tokens = 0
                last = position == len(sequence.prompt) - 1
                index = add(sequence.prompt[position], position, number, last)
                if last:
                    pending.append((number, index))
        decode()
        _take(sequences, pending, best)
        while True:
            for sequence in sequences:
                if not sequence.done:
                    _accept(sequence, llm, vocab)
            active = [n for n, s in enumerate(sequences) if not s.done]
            if not active:
                break
            if deadline is not None and deadline.stop_requested():
                deadline.check()
            batch.n_tokens = 0
            for number in active:
                sequence = sequences[number]
                position = len(sequence.prompt) + len(sequence.tokens) - 1
                pending.append((number, add(sequence.tokens[-1], position, number, True)))
            decode()
            _take(sequences, pending, best)
    finally:
        llama_cpp.llama_batch_free(batch)
        for number in range(1, len(sequences)):
            llama_cpp.llama_memory_seq_rm(memory, number, -1, -1)
        llama_cpp.llama_memory_seq_rm(memory, 0, shared, -1)
        llm.n_tokens = shared
    return [Generated(s.text, len(s.tokens), s.truncated) for s in sequences]


def add_token(batch: Any, token: int, position: int, sequence: int, logits: bool) -> int:
    """Append one token of ``sequence`` at ``position`` to a llama.cpp batch (``logits``:
    whether its next-token logits are wanted); its index in the batch."""
    index: int = batch.n_tokens
    batch.token[index] = token
    batch.pos[index] = position
    batch.n_seq_id[index] = 1
    batch.seq_id[index][0] = sequence
    batch.logits[index] = logits
    batch.n_tokens = index + 1
    return index


def _take(sequences: list[_Sequence], pending: list[tuple[int, int]], best: Any) -> None:
    for number, index in pending:
        sequences[number].next_token = best(index)
    pending.clear()


def _accept(sequence: _Sequence, llm: Llama, vocab: Any) -> None:
    """Take the sequence's next token, or end it: end of generation, a stop string, or its
    token budget spent."""
    import llama_cpp

    token = sequence.next_token
    if llama_cpp.llama_vocab_is_eog(vocab, token):
        sequence.done = True
        return
    if len(sequence.tokens) >= sequence.max_tokens:
        sequence.done = sequence.truncated = True
        return
    sequence.tokens.append(token)
    text = llm.detokenize(sequence.tokens).decode("utf-8", errors="ignore")
    for stop in sequence.stop:
        at = text.find(stop)
        if at >= 0:
            text = text[:at]
            sequence.done = True
    sequence.text = text


@contextlib.contextmanager
def parallel_sequences(count: int) -> Iterator[None]:
    """Contexts created meanwhile hold ``count`` sequences in one KV cache (``kv_unified``:
    each may use the whole context, and a shared prefix is stored once). llama-cpp-python's
    ``Llama`` takes neither setting, so its source of default parameters is wrapped."""
    import llama_cpp.llama_cpp as low_level  # the module whose name Llama() looks up

    defaults = low_level.llama_context_default_params

    def parameters() -> Any:
        params = defaults()
        params.n_seq_max = count
        params.kv_unified = True
        return params

    setattr(low_level, "llama_context_default_params", parameters)  # noqa: B010
    try:
        yield
    finally:
        setattr(low_level, "llama_context_default_params", defaults)  # noqa: B010
