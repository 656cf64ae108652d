"""The built services: what each part of threadwise gets, and their start, readiness and
close."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, wait
from dataclasses import dataclass, field

from threadwise.cache import Cache
from threadwise.config import Settings
from threadwise.engines.base import ChatEngine
from threadwise.engines.machine import MachineTranslator
from threadwise.engines.profiles import Profiles
from threadwise.metrics import Metrics
from threadwise.organizations.glossaries import GlossaryStore
from threadwise.organizations.policies import OrganizationPolicies
from threadwise.organizations.usage import UsageStore
from threadwise.payload import PayloadLimits
from threadwise.services.auth import AuthServices
from threadwise.serving.admission import Admission
from threadwise.serving.context import ServingContext
from threadwise.serving.idempotency import (
    IdempotencyStore,
)
from threadwise.serving.jobs import Jobs
from threadwise.serving.languages import languages_document
from threadwise.serving.lifecycle import Lifecycle
from threadwise.serving.operations import Operations
from threadwise.superpowers.summarize import (
    Summarizer,
    SummarizeSuperpower,
)
from threadwise.superpowers.translate import TranslateSuperpower, Translator
from threadwise.superpowers.translate.llm import LlmTranslator
from threadwise.text.languages import LanguageIdentifier
from threadwise.work_queue import Priority, Scheduler

log = logging.getLogger("threadwise")


@dataclass(frozen=True)
class LanguageModel:
    """One configured language model: its engine, the queue in front of it, and what uses
    it."""

    engine: ChatEngine
    queue: Scheduler
    summarizer: Summarizer
    llm_translator: LlmTranslator
    # Read the fixed system prompts at start-up (the embedded engine keeps their state); a
    # model server's prompt cache is warmed by the first request of any replica.
    read_ahead: bool
    close: Callable[[], None]


@dataclass
class Services:
    settings: Settings
    auth: AuthServices
    # The language models a request's attributes.variant picks from (engine profiles);
    # engine, llm_queue, default_summarizer and default_translator are the default's.
    models: Profiles[LanguageModel]
    engine: ChatEngine
    llm_queue: Scheduler
    identifier: LanguageIdentifier
    default_summarizer: Summarizer
    # The superpowers: what the request pipeline calls.
    summarize: SummarizeSuperpower
    limits: PayloadLimits
    # Translation: the fast engines run on their own threads, never behind the model's queue.
    machine_translators: dict[str, MachineTranslator]
    fast_queue: Scheduler
    default_translator: Translator
    translate: TranslateSuperpower
    # Serving: what every transport goes through, and what it reports.
    metrics: Metrics
    lifecycle: Lifecycle
    idempotency: IdempotencyStore
    results: Cache
    threads: Cache
    operations: Operations
    # Organizations' policies (their quotas among them), glossaries and do-not-translate
    # terms, and their usage, in the auth database.
    policies: OrganizationPolicies
    glossaries: GlossaryStore
    usage: UsageStore
    # Asynchronous jobs: submitted through the transports, run by this replica's worker.
    jobs: Jobs
    _loading: list[Future[None]] = field(default_factory=list, repr=False)

    def start(self) -> None:
        """Load each model on its engine's own queue; requests queue behind the load. The
        translation engines load (and their pipelines start) meanwhile on theirs. Usage is
        written to the database from now on."""
        self.usage.start()
        if not self._loading:
            for model in self.models.values():
                self._loading.append(model.queue.submit(functools.partial(self._load, model)))
            self._loading.append(self.fast_queue.submit(self._load_fast))

    def _load(self, model: LanguageModel) -> None:
        self.identifier.load()
        model.engine.load()
        if model.engine.unavailable is not None:
            # Probed until it answers: the replica is not ready meanwhile.
            log.warning("%s: %s", model.engine.name, model.engine.unavailable)
            return
        if model.read_ahead:
            # The fixed system prompts, read once now rather than by the first requests.
            model.llm_translator.warm()
            model.summarizer.warm()
        log.info("model loaded: %s", model.engine.name)

    def _load_fast(self) -> None:
        for engine in self.machine_translators.values():
            engine.load()
        log.info("translation engines loaded: %s", ", ".join(self.machine_translators))

    @property
    def loaded(self) -> bool:
        return bool(self._loading) and all(
            f.done() and f.exception() is None for f in self._loading
        )

    def wait_loaded(self, seconds: float) -> bool:
        """Wait until the engines have loaded, one has failed to, or ``seconds`` have passed;
        whether they loaded (tests and benchmarks wait so, after ``start``)."""
        wait(self._loading, timeout=seconds, return_when=FIRST_EXCEPTION)
        return self.loaded

    def saturated_queues(self) -> list[str]:
        """The queues that would refuse the next request."""
        queues = [(m.queue, Priority.BATCH) for m in self.models.values()]
        queues.append((self.fast_queue, Priority.INTERACTIVE))
        return [queue.name for queue, priority in queues if queue.saturated(priority)]

    def unavailable_engines(self) -> dict[str, str]:
        """Why each engine that cannot take work now cannot, by profile ("" the default)."""
        return {
            name or "": model.engine.unavailable
            for name, model in self.models.items()
            if model.engine.unavailable is not None
        }

    @property
    def ready(self) -> bool:
        """Loaded, not draining, no queue saturated and the default engine there: send
        traffic here."""
        return (
            self.loaded
            and not self.lifecycle.draining
            and not self.saturated_queues()
            and self.engine.unavailable is None
        )

    @property
    def engine_name(self) -> str:
        """The default engine's name."""
        return self.engine.name

    @property
    def load_error(self) -> BaseException | None:
        for loading in self._loading:
            if loading.done() and loading.exception() is not None:
                return loading.exception()
        return None

    def serving_context(self) -> ServingContext:
        """What the transports use of these services (``threadwise.api`` sees no more)."""
        return ServingContext(
            settings=self.settings,
            gate=self.auth.gate,
            grant=self.auth.grant,
            admission=Admission(self.auth.gate, self.limits),
            operations=self.operations,
            lifecycle=self.lifecycle,
            metrics=self.metrics,
            readiness=self,
            policies=self.policies,
            glossaries=self.glossaries,
            usage=self.usage,
            jobs=self.jobs,
            languages=functools.partial(languages_document, self.default_translator.router),
            identify=self.identifier.detect_with_probability,
        )

    def close(self) -> None:
        for model in self.models.values():
            model.queue.shutdown()
            model.close()
        self.fast_queue.shutdown()
        self.usage.close()  # after the drain: what the last requests used is written too
        self.auth.close()
        self.idempotency.close()
        self.results.close()
        self.threads.close()
        for engine in self.machine_translators.values():
            engine.close()
