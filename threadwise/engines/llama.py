"""In-process language model on llama.cpp (llama-cpp-python)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage, Completion, answer_starts
from threadwise.engines.cores import CoreShare
from threadwise.engines.llama_batching import ContinuousBatcher
from threadwise.engines.llama_parallel import (
    MAX_SEQUENCES,
    decode_side_by_side,
    parallel_sequences,
    rounds,
)
from threadwise.engines.metering import charge
from threadwise.engines.native_build import check_cpu
from threadwise.engines.prefix_states import (
    PrefixStates,
    Tokens,
    common_prefix,
    read_state,
    restore_state,
)
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

log = logging.getLogger(__name__)

# Prompt tokens evaluated between two deadline checks (~2.5 s on two cores).
_PROMPT_CHUNK = 256
# ... and between two looks at the cores, when they are shared with other engines.
_SHARED_PROMPT_CHUNK = 96
# Restoring a saved state pays when it spares at least this many tokens of prompt processing.
_RESTORE_GAIN_TOKENS = 64
# (prompt tokens, completion tokens, seconds, of which generating) of each call.
CallObserver = Callable[[int, int, float, float], None]

# For a GGUF without a chat template: ChatML, which the Qwen family uses.
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class LlamaCppEngine:
    """One llama.cpp model per process.

    llama.cpp keeps the KV cache of the last evaluated tokens and re-evaluates only from the
    first token where a new prompt differs, so prompts that share the fixed system prompt,
    or extend the previous turn, skip that part of prompt processing. Calls made with
    ``keep`` also leave their state in a bounded set of saved states (``prefix_cache_bytes``),
    restored when a later prompt extends it further than the live cache does. ``chat_many``
    decodes up to ``MAX_SEQUENCES`` chats side by side in the one context (``llama_parallel``).

    With ``batching`` (the requests that may call it at once, from as many threads), every
    call goes to a ``ContinuousBatcher`` instead: the calls of different requests decode side
    by side, joining and leaving between steps, in a context of ``batching`` times
    ``context_size`` cells (each call still gets at most ``context_size``); shared prompt
    prefixes are kept as the batcher's cells rather than saved states.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        context_size: int,
        threads: int,
        batch_size: int = 512,
        prefix_cache_bytes: int = 0,
        on_call: CallObserver | None = None,
        cores: CoreShare | None = None,
        batching: int = 0,
        nice: int = 0,
    ) -> None:
        self._path = model_path
        self._batching = batching
        self._nice = nice
        self._batcher: ContinuousBatcher | None = None
        # Consulted before each decode call: fewer threads while other engines run.
        self.cores = cores
        self._threads_now = threads
        self.prefix_states = (
            PrefixStates(prefix_cache_bytes) if prefix_cache_bytes and not batching else None
        )
        self._on_call = on_call
        self._context_size = context_size
        self._threads = threads
        self._batch_size = batch_size
        self._llm: Llama | None = None
        self._formatter: Jinja2ChatFormatter | None = None
        self._load_lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"llama.cpp:{self._path.stem}"

    @property
    def context_size(self) -> int:
        return self._context_size

    @property
    def unavailable(self) -> str | None:
        return None  # in the process: there when loaded

    def load(self) -> None:
        # A library built for another CPU would die of SIGILL in the model's threads: refuse
        # it with a sentence before it is loaded.
        check_cpu()
        # Imported late: it loads the native library.
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        with self._load_lock:
            if self._llm is None:
                with parallel_sequences(MAX_SEQUENCES):
                    llm = Llama(
                        model_path=str(self._path),
                        n_ctx=self._context_size * max(1, self._batching),
                        n_threads=self._threads,
                        n_threads_batch=self._threads,
                        n_batch=self._batch_size,
                        seed=0,
                        verbose=False,
                    )
                # The model's own chat template renders the prompt, so that an answer can be
                # continued from a given start (which the chat completion API cannot do).
                self._formatter = Jinja2ChatFormatter(
                    template=llm.metadata.get("tokenizer.chat_template", _CHATML),
                    eos_token=llm._model.token_get_text(llm.token_eos()),
                    bos_token=llm._model.token_get_text(llm.token_bos()),
                    stop_token_ids=[llm.token_eos()],
                )
                if self._batching:
                    self._batcher = ContinuousBatcher(
                        llm, MAX_SEQUENCES, lambda: self._fit_threads(llm), self._nice
                    )
                self._llm = llm

    def close(self) -> None:
        """Stop the batcher's thread (its calls still waiting fail)."""
        if self._batcher is not None:
            self._batcher.close()

    def _model(self) -> Llama:
        if self._llm is None:
            self.load()
        assert self._llm is not None
        return self._llm

    def count_tokens(self, text: str) -> int:
        return len(self._model().tokenize(text.encode("utf-8"), add_bos=False, special=False))

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
        llm = self._model()
        prompt, stops = self._prompt(llm, messages, continue_from, stop)
        if self._batcher is not None:
            [done] = self._batched(
                [(prompt, stops)], [max_tokens], deadline, [continue_from], on_text
            )
            return done
        started = time.perf_counter()
        try:
            return self._complete(
                llm,
                prompt,
                stops,
                max_tokens,
                deadline,
                started,
                continue_from,
                keep=keep,
                on_text=on_text,
            )
        except ServiceError:
            raise
        except Exception as exc:
            raise self._failed(llm, exc) from exc

    def chat_many(
        self,
        chats: Sequence[list[ChatMessage]],
        *,
        max_tokens: Sequence[int],
        deadline: Deadline | None = None,
        continue_from: str | Sequence[str] = "",
        stops: Sequence[Sequence[str]] = (),
    ) -> list[Completion]:
        """Answers to several chats, decoded side by side (see ``llama_parallel``) in rounds of
        up to ``MAX_SEQUENCES``; what they share at the start of their prompts is processed
        once."""
        results: list[Completion] = []
        every_stop = list(stops) or [()] * len(chats)
        starts = answer_starts(continue_from, len(chats))
        llm = self._model()
        rendered = [
            self._prompt(llm, chat, start, stop)
            for chat, start, stop in zip(chats, starts, every_stop, strict=True)
        ]
        if self._batcher is not None:
            return self._batched(rendered, max_tokens, deadline, starts)
        prompts = [prompt for prompt, _ in rendered]
        # As many side by side as the context holds (a long conversation's chunks can fill
        # it before MAX_SEQUENCES do: llama.cpp then finds no cells and the call fails).
        for part in rounds(prompts, max_tokens, self._context_size, MAX_SEQUENCES):
            if len(part) == 1:
                [one] = part
                results.append(
                    self.chat(
                        chats[one],
                        max_tokens=max_tokens[one],
                        deadline=deadline,
                        continue_from=starts[one],
                        stop=every_stop[one],
                    )
                )
                continue
            results.extend(
                self._side_by_side(
                    [rendered[i] for i in part],
                    [max_tokens[i] for i in part],
                    deadline,
                    [starts[i] for i in part],
                )
            )
        return results

    def _batched(
        self,
        rendered: Sequence[tuple[list[int], list[str]]],
        max_tokens: Sequence[int],
        deadline: Deadline | None,
        starts: Sequence[str],
        on_text: Callable[[str], None] | None = None,
    ) -> list[Completion]:
        """Chats already rendered, answered by the continuous batcher."""
        assert self._batcher is not None
        try:
            for prompt, _ in rendered:
                if len(prompt) >= self._context_size:  # as llama.cpp refuses one call
                    raise ValueError(
                        f"Requested tokens ({len(prompt)}) exceed context window of "
                        f"{self._context_size}"
                    )
            futures = [
                self._batcher.submit(prompt, budget, stops, deadline, on_text)
                for (prompt, stops), budget in zip(rendered, max_tokens, strict=True)
            ]
        except (ValueError, RuntimeError) as exc:  # too long for the context, or closed
            raise _failure(exc, logged=True) from exc
        completions = []
        for future, start in zip(futures, starts, strict=True):
            try:
                done = future.result()
            except ServiceError:
                raise
            except Exception as exc:
                raise _failure(exc, logged=True) from exc
            charge(done.prompt_tokens, done.completion_tokens)
            if self._on_call is not None:
                self._on_call(
                    done.prompt_tokens, done.completion_tokens, done.seconds, done.generating
                )
            completions.append(
                Completion(
                    text=(start + done.text).strip(),
                    prompt_tokens=done.prompt_tokens,
                    completion_tokens=done.completion_tokens,
                    truncated=done.truncated,
                )
            )
        if deadline is not None:
            deadline.check()
        return completions

    def _side_by_side(
        self,
        rendered: Sequence[tuple[list[int], list[str]]],
        max_tokens: Sequence[int],
        deadline: Deadline | None,
        starts: Sequence[str],
    ) -> list[Completion]:
        """Chats already rendered (``_prompt``: tokens, and the strings that end each answer)
        decoded side by side."""
        llm = self._model()
        prompts = [prompt for prompt, _ in rendered]
        first = np.asarray(prompts[0], dtype=np.intc)
        shared = min(len(p) for p in prompts) - 1
        for prompt in prompts[1:]:
            shared = min(shared, common_prefix(first, np.asarray(prompt, dtype=np.intc)))
        started = time.perf_counter()
        try:
            if self.prefix_states is not None:
                self._restore_best(llm, first)
            live = common_prefix(np.asarray(llm.input_ids[: llm.n_tokens]), first)
            self._evaluate(llm, prompts[0][:shared], min(live, shared), deadline)
            every_stop = [stop for _, stop in rendered]
            generated = decode_side_by_side(llm, prompts, shared, max_tokens, every_stop, deadline)
        except ServiceError:
            raise
        except Exception as exc:
            raise self._failed(llm, exc) from exc
        ended = time.perf_counter()
        completions = [
            Completion(
                text=(start + g.text).strip(),
                prompt_tokens=len(p),
                completion_tokens=g.completion_tokens,
                truncated=g.truncated,
            )
            for p, start, g in zip(prompts, starts, generated, strict=True)
        ]
        for c in completions:
            charge(c.prompt_tokens, c.completion_tokens)
        if self._on_call is not None:
            share = (ended - started) / len(completions)
            for c in completions:
                self._on_call(c.prompt_tokens, c.completion_tokens, share, share)
        return completions

    def _complete(
        self,
        llm: Llama,
        prompt: list[int],
        stop: list[str],
        max_tokens: int,
        deadline: Deadline | None,
        started: float,
        continue_from: str,
        *,
        keep: bool,
        on_text: Callable[[str], None] | None,
    ) -> Completion:
        from llama_cpp import LogitsProcessorList

        if self.prefix_states is not None:
            self._restore_best(llm, np.asarray(prompt, dtype=np.intc))
        self._process_prompt(llm, prompt, deadline)

        eos = llm.token_eos()
        first_token: list[float] = []
        generated = 0

        def end_when_stopped(_tokens: Any, scores: Any) -> Any:
            # Called once per token, before it is sampled. Past the deadline (or cancelled),
            # force end-of-sequence so generation stops at the next token; the check after
            # the call then reports why.
            nonlocal generated
            generated += 1
            self._fit_threads(llm)
            if not first_token:
                first_token.append(time.perf_counter())  # the prompt is processed
            if deadline is not None and deadline.stop_requested():
                scores[:] = -float("inf")
                scores[eos] = 0.0
            return scores

        arguments: dict[str, Any] = {
            "prompt": prompt,
            "max_tokens": max_tokens,
            "stop": stop,
            "temperature": 0.0,
            "top_k": 1,
            "repeat_penalty": 1.0,
            "logits_processor": LogitsProcessorList([end_when_stopped]),
        }
        if on_text is None:
            response: Any = llm.create_completion(**arguments)
            choice = response["choices"][0]
            text, finish_reason = choice["text"], choice.get("finish_reason")
            prompt_tokens = int(response["usage"]["prompt_tokens"])
            completion_tokens = int(response["usage"]["completion_tokens"])
        else:
            chunks = cast(Iterator[Any], llm.create_completion(**arguments, stream=True))
            pieces: list[str] = []
            finish_reason = None
            for chunk in chunks:
                piece = chunk["choices"][0]
                if piece["text"]:
                    pieces.append(piece["text"])
                    on_text(piece["text"])
                finish_reason = piece.get("finish_reason") or finish_reason
            text = "".join(pieces)
            # A stream reports no usage: the prompt is what was sent, and every token sampled
            # went through the logits processor once (the end-of-sequence one too).
            prompt_tokens = len(prompt)
            completion_tokens = generated - 1 if finish_reason == "stop" else generated
        ended = time.perf_counter()
        if keep and self.prefix_states is not None:
            self._save(llm)
        charge(prompt_tokens, completion_tokens)  # spent, even if the deadline has passed
        if self._on_call is not None:
            generating = ended - first_token[0] if first_token else 0.0
            self._on_call(prompt_tokens, completion_tokens, ended - started, generating)
        if deadline is not None:
            deadline.check()
        return Completion(
            text=(continue_from + text).strip(),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            truncated=finish_reason == "length",
        )

    def _process_prompt(self, llm: Llama, prompt: list[int], deadline: Deadline | None) -> None:
        """Evaluate the prompt but its last token in chunks, checking the deadline (and the
        cores) between them: a long prompt takes many seconds, and a cancelled request
        should not."""
        self._fit_threads(llm)
        if deadline is None and self.cores is None:
            return
        live = common_prefix(
            np.asarray(llm.input_ids[: llm.n_tokens]), np.asarray(prompt, dtype=np.intc)
        )
        end = len(prompt) - 1
        chunk = _PROMPT_CHUNK if self.cores is None else _SHARED_PROMPT_CHUNK
        if end - live > chunk:  # else create_completion does it in one go
            self._evaluate(llm, prompt[:end], live, deadline, chunk)

    def _fit_threads(self, llm: Llama) -> None:
        """Use the threads the cores allow now (llama.cpp takes a new count per decode)."""
        wanted = self._threads if self.cores is None else self.cores.threads_for_model()
        if wanted != self._threads_now:
            import llama_cpp

            llama_cpp.llama_set_n_threads(llm.ctx, wanted, wanted)
            self._threads_now = wanted

    def _prompt(
        self, llm: Llama, messages: list[ChatMessage], continue_from: str, stop: Sequence[str]
    ) -> tuple[list[int], list[str]]:
        """The chat rendered by the model's template (the answer begun with
        ``continue_from``) as tokens, and the strings that end its answer."""
        assert self._formatter is not None
        rendered = self._formatter(messages=list(messages))  # type: ignore[arg-type]
        tokens = llm.tokenize(
            (rendered.prompt + continue_from).encode("utf-8"),
            add_bos=not rendered.added_special,
            special=True,
        )
        return tokens, [*_as_list(rendered.stop), *stop]

    def _evaluate(
        self,
        llm: Llama,
        tokens: list[int],
        live: int,
        deadline: Deadline | None,
        chunk: int = _PROMPT_CHUNK,
    ) -> None:
        """Have the context hold ``tokens``, of which it holds the first ``live`` already;
        in chunks, the deadline checked (and the threads fitted to the cores) between them."""
        llm.n_tokens = live  # eval() drops the cache past this point
        for start in range(live, len(tokens), chunk):
            if deadline is not None:
                deadline.check()
            self._fit_threads(llm)
            llm.eval(tokens[start : start + chunk])

    def _failed(self, llm: Llama, exc: Exception) -> ServiceError:
        """What to raise for an unexpected ``exc`` from inside a call: the context is reset
        (whatever state it was left in, the next call starts from an empty one)."""
        self._forget(llm)
        log.exception("the model failed")
        return _failure(exc)

    def _forget(self, llm: Llama) -> None:
        import llama_cpp

        llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(llm.ctx), True)
        llm.n_tokens = 0

    # --- saved prompt states ---------------------------------------------------------------

    def _restore_best(self, llm: Llama, prompt: Tokens) -> None:
        assert self.prefix_states is not None
        live = common_prefix(np.asarray(llm.input_ids[: llm.n_tokens]), prompt)
        found = self.prefix_states.best(prompt, live + _RESTORE_GAIN_TOKENS)
        if found is not None:
            restore_state(llm, found[0])

    def _save(self, llm: Llama) -> None:
        assert self.prefix_states is not None
        state = read_state(llm, self.prefix_states.max_bytes)
        if state is not None:
            self.prefix_states.save(state)


def _failure(exc: Exception, logged: bool = False) -> ServiceError:
    """What a call that failed inside the model raises (the context has been reset: by the
    one-call path, or by the batcher); ``logged``: say so in the log first."""
    if logged:
        log.error("the model failed: %s", exc)
    return ServiceError(
        ErrorCode.PROCESSING_FAILED,
        f"The language model failed ({type(exc).__name__}: {exc}). It has been reset; "
        "retry the request.",
    )


def _as_list(stop: str | list[str] | None) -> list[str]:
    if stop is None:
        return []
    return [stop] if isinstance(stop, str) else list(stop)
