"""In-process language model on llama.cpp (llama-cpp-python)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatMessage, Completion

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

# For a GGUF without a chat template: ChatML, which the Qwen family uses.
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class LlamaCppEngine:
    """One llama.cpp model per process.

    llama.cpp keeps the KV cache of the last evaluated tokens and re-evaluates only from the
    first token where a new prompt differs, so prompts that share the fixed system prompt,
    or extend the previous turn, skip that part of prompt processing. (llama-cpp-python's
    LlamaRAMCache would keep several prefixes, but each saved state also copies a 311 MB
    logits buffer that its limit does not count: 9.3 GB resident, measured.)
    """

    def __init__(
        self,
        model_path: Path,
        *,
        context_size: int,
        threads: int,
        batch_size: int = 512,
    ) -> None:
        self._path = model_path
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
    def loaded(self) -> bool:
        return self._llm is not None

    def load(self) -> None:
        # Imported late: it loads the native library.
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        with self._load_lock:
            if self._llm is None:
                llm = Llama(
                    model_path=str(self._path),
                    n_ctx=self._context_size,
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
                self._llm = llm

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
        stop: Sequence[str] = (),
        on_text: Callable[[str], None] | None = None,
    ) -> Completion:
        from llama_cpp import LogitsProcessorList

        llm = self._model()
        assert self._formatter is not None
        rendered = self._formatter(messages=list(messages))  # type: ignore[arg-type]
        prompt = llm.tokenize(
            (rendered.prompt + continue_from).encode("utf-8"),
            add_bos=not rendered.added_special,
            special=True,
        )

        eos = llm.token_eos()
        generated = 0

        def end_when_stopped(_tokens: Any, scores: Any) -> Any:
            # Called once per token, before it is sampled. Past the deadline (or cancelled),
            # force end-of-sequence so generation stops at the next token; the check after
            # the call then reports why.
            nonlocal generated
            generated += 1
            if deadline is not None and deadline.stop_requested():
                scores[:] = -float("inf")
                scores[eos] = 0.0
            return scores

        arguments: dict[str, Any] = {
            "prompt": prompt,
            "max_tokens": max_tokens,
            "stop": [*_as_list(rendered.stop), *stop],
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
        if deadline is not None:
            deadline.check()
        return Completion(
            text=(continue_from + text).strip(),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            truncated=finish_reason == "length",
        )


def _as_list(stop: str | list[str] | None) -> list[str]:
    if stop is None:
        return []
    return [stop] if isinstance(stop, str) else list(stop)
