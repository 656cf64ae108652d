"""The composition root: builds engines, queues and superpowers once, from the settings.

Routes, the WebSocket endpoint and the CLI all get what they need from here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from threadwise.config import Settings
from threadwise.engines.base import ChatEngine
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.model_files import DEFAULT_MODEL, ModelFileError, prepare_model
from threadwise.engines.queue import WorkQueue
from threadwise.payload import PayloadLimits
from threadwise.superpowers.summarize import Summarizer, SummarizeSuperpower, SummaryOptions
from threadwise.text.languages import LanguageIdentifier

log = logging.getLogger("threadwise")


@dataclass
class Services:
    settings: Settings
    engine: ChatEngine
    llm_queue: WorkQueue
    identifier: LanguageIdentifier
    summarizer: Summarizer
    summarize: SummarizeSuperpower
    limits: PayloadLimits
    _loading: Future[None] | None = field(default=None, repr=False)

    def start(self) -> None:
        """Load the models on the engine's own thread; requests queue behind the load."""
        if self._loading is None:
            self._loading = self.llm_queue.submit(self._load)

    def _load(self) -> None:
        self.identifier.load()
        self.engine.load()
        log.info("model loaded: %s", self.engine.name)

    @property
    def ready(self) -> bool:
        return (
            self._loading is not None and self._loading.done() and self._loading.exception() is None
        )

    @property
    def load_error(self) -> BaseException | None:
        if self._loading is None or not self._loading.done():
            return None
        return self._loading.exception()

    def close(self) -> None:
        self.llm_queue.shutdown()


def build_services(settings: Settings, progress: Callable[[str], None] = log.info) -> Services:
    """Build everything from the settings; joins and verifies the default model if needed."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    model_path = settings.llm_model_path
    if model_path is None:
        model_path = prepare_model(DEFAULT_MODEL, settings.model_dir, progress)
    elif not model_path.is_file():
        raise ModelFileError(
            f"THREADWISE_LLM_MODEL_PATH names {model_path}, which is not a file; point it at a "
            "GGUF model, or unset it to use the packaged default model."
        )
    engine = LlamaCppEngine(
        model_path,
        context_size=settings.llm_context_size,
        threads=settings.llm_threads,
        batch_size=settings.llm_batch_size,
    )
    queue = WorkQueue(settings.llm_queue_size, name="llm")
    identifier = LanguageIdentifier()
    summarizer = Summarizer(
        engine,
        identifier,
        SummaryOptions(notes=settings.summary_notes, self_check=settings.summary_self_check),
    )
    return Services(
        settings=settings,
        engine=engine,
        llm_queue=queue,
        identifier=identifier,
        summarizer=summarizer,
        summarize=SummarizeSuperpower(summarizer, queue, settings.request_timeout_seconds),
        limits=PayloadLimits(
            max_conversations=settings.max_conversations,
            max_messages=settings.max_messages,
            max_message_chars=settings.max_message_chars,
        ),
    )
