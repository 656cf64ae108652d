"""The language model engines (embedded or a model server) and their queues, per profile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from threadwise.config import EngineChoice, RemoteEngine, Settings
from threadwise.engines.base import ChatEngine
from threadwise.engines.cores import CoreShare
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.model_files import DEFAULT_MODEL, ModelFileError, prepare_model
from threadwise.engines.profiles import Profiles
from threadwise.engines.remote import RemoteChatEngine
from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.metrics import Metrics
from threadwise.work_queue import Scheduler


@dataclass(frozen=True)
class BuiltEngine:
    """A language model engine and the queue in front of it."""

    engine: ChatEngine
    queue: Scheduler
    read_ahead: bool
    close: Callable[[], None]


def build_engines(
    settings: Settings, metrics: Metrics, cores: CoreShare, progress: Callable[[str], None]
) -> Profiles[BuiltEngine]:
    """The default engine and each profile's, and their queues; profiles configured alike
    share one engine. The embedded model is prepared only when some profile uses it."""
    built: list[tuple[EngineChoice, BuiltEngine]] = []

    def engine_for(choice: EngineChoice, queue_name: str) -> BuiltEngine:
        for known, engine in built:
            if known == choice:
                return engine
        if isinstance(choice, RemoteEngine):
            engine = _remote_engine(choice, settings, metrics, queue_name)
        else:
            engine = _embedded_engine(settings, metrics, cores, progress, queue_name)
        capacity = engine.queue.capacity
        metrics.watch_queue(
            queue_name, lambda: engine.queue.depth, capacity, lambda: engine.queue.running
        )
        built.append((choice, engine))
        return engine

    default = engine_for(settings.default_engine, "llm")
    named = {
        name: engine_for(choice, f"llm-{name}") for name, choice in settings.engine_profiles.items()
    }
    return Profiles(default, named)


def _embedded_engine(
    settings: Settings,
    metrics: Metrics,
    cores: CoreShare,
    progress: Callable[[str], None],
    queue_name: str,
) -> BuiltEngine:
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
        prefix_cache_bytes=settings.llm_prefix_cache_mb * 2**20,
        on_call=metrics.model_call,
        cores=cores if settings.llm_share_cores else None,
        batching=settings.llm_batching,
        nice=settings.llm_nice,
    )
    # One worker: llama.cpp's context takes one call at a time; with continuous batching, as
    # many as it serves at once (their calls meet in the batcher).
    queue = Scheduler(
        settings.llm_queue_size + settings.llm_batching,
        name=queue_name,
        policy=settings.llm_scheduling,
        observer=metrics,
        nice=settings.llm_nice,
        workers=max(1, settings.llm_batching),
    )
    return BuiltEngine(engine, queue, True, engine.close)


def _remote_engine(
    server: RemoteEngine, settings: Settings, metrics: Metrics, queue_name: str
) -> BuiltEngine:
    engine = RemoteChatEngine(
        server,
        context_size=settings.llm_context_size,
        breaker=CircuitBreaker(settings.llm_breaker_failures, settings.llm_breaker_seconds),
        on_call=metrics.model_call,
    )
    # The server batches: as many workers as requests it may have in flight, and the queue
    # holds llm_queue_size more of each kind.
    queue = Scheduler(
        settings.llm_queue_size + server.concurrency,
        name=queue_name,
        policy=settings.llm_scheduling,
        observer=metrics,
        workers=server.concurrency,
    )
    return BuiltEngine(engine, queue, False, engine.close)
