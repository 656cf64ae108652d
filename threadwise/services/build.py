"""Build every service from the settings, once, at start-up."""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio.to_thread

from threadwise import __version__
from threadwise.cache import Cache, InProcessCache, RedisCache
from threadwise.config import Settings
from threadwise.deadlines import DeadlinePolicy
from threadwise.engines.apertium import ApertiumEngine
from threadwise.engines.bergamot import BergamotEngine
from threadwise.engines.cores import CoreShare
from threadwise.engines.machine import MachineTranslator
from threadwise.jobs.store import JobStore
from threadwise.metrics import Metrics
from threadwise.organizations.glossaries import GlossaryStore
from threadwise.organizations.policies import OrganizationPolicies
from threadwise.organizations.usage import UsageStore
from threadwise.payload import PayloadLimits
from threadwise.services.auth import build_auth_services
from threadwise.services.container import LanguageModel, Services
from threadwise.services.engines import build_engines
from threadwise.services.jobs import build_jobs
from threadwise.serving.idempotency import (
    IdempotencyStore,
    InProcessIdempotencyStore,
    RedisIdempotencyStore,
)
from threadwise.serving.lifecycle import Lifecycle
from threadwise.serving.operations import Operations, digest
from threadwise.serving.redaction import Redactor
from threadwise.superpowers.summarize import (
    QueuedSummarizer,
    Summarizer,
    SummarizeSuperpower,
    SummaryOptions,
    prompts,
)
from threadwise.superpowers.summarize.output_language import summary_machines
from threadwise.superpowers.translate import QueuedTranslator, TranslateSuperpower, Translator
from threadwise.superpowers.translate.llm import LlmTranslator
from threadwise.superpowers.translate.registers import Registers
from threadwise.superpowers.translate.routing import LLM, TIERS, TranslationRouter
from threadwise.text.formality import RegisterCheck
from threadwise.text.languages import TRANSLATION_LANGUAGES, LanguageIdentifier
from threadwise.text.readdressing import Readdresser
from threadwise.work_queue import Scheduler

log = logging.getLogger("threadwise")


def build_services(settings: Settings, progress: Callable[[str], None] = log.info) -> Services:
    """Build everything from the settings; joins and verifies the default model if needed."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    auth = build_auth_services(settings)  # first: a settings mistake shows before the model
    metrics = Metrics()
    cores = CoreShare(settings.llm_threads)
    identifier = LanguageIdentifier()
    options = SummaryOptions(notes=settings.summary_notes)
    languages = tuple(TRANSLATION_LANGUAGES)
    engines = build_engines(settings, metrics, cores, progress)
    apertium = ApertiumEngine(languages, warm=settings.apertium_warm_languages)
    # A translation asked in a register is checked, and rewritten, with the dictionaries.
    registers = Registers(
        RegisterCheck(apertium.analyze, apertium.analyzed_languages()),
        Readdresser(apertium.analyze, apertium.generate, apertium.generated_languages()),
    )
    machine_translators: dict[str, MachineTranslator] = {
        "apertium": apertium,
        "bergamot": BergamotEngine(),
    }
    # Summaries into Catalan and Galician are translated by Apertium (measured better).
    summary_engines = summary_machines(machine_translators)
    models = engines.map(
        lambda built: LanguageModel(
            built.engine,
            built.queue,
            Summarizer(built.engine, identifier, options, summary_engines),
            LlmTranslator(built.engine, languages, identifier, registers=registers),
            built.read_ahead,
            built.close,
        )
    )
    default = models.default
    router = TranslationRouter(
        {
            LLM: default.llm_translator.directions(),
            **{kind: e.directions() for kind, e in machine_translators.items()},
        },
        overrides=settings.translation_routes,
    )
    translators = models.map(
        lambda model: QueuedTranslator(
            Translator(identifier, router, machine_translators, model.llm_translator, apertium),
            model.queue,
        )
    )
    fast_queue = Scheduler(
        settings.translation_queue_size,
        name="translate",
        observer=metrics,
        workers=settings.translation_threads,
        typical_seconds=(0.02, 0.02),
        cores=cores,
    )
    metrics.watch_queue(
        "translate",
        lambda: fast_queue.depth,
        settings.translation_queue_size,
        lambda: fast_queue.running,
    )
    idempotency: IdempotencyStore
    results: Cache
    threads: Cache
    if settings.redis_url:
        idempotency = RedisIdempotencyStore(settings.redis_url, settings.idempotency_ttl_seconds)
        results = RedisCache(settings.redis_url, "threadwise:results:")
        threads = RedisCache(settings.redis_url, "threadwise:threads:")
    else:
        idempotency = InProcessIdempotencyStore(
            settings.idempotency_ttl_seconds, settings.idempotency_max_entries
        )
        results = InProcessCache(settings.result_cache_entries)
        threads = InProcessCache(settings.result_cache_entries)
    translate = TranslateSuperpower(
        translators,
        fast_queue,
        DeadlinePolicy(
            base=settings.translation_deadline_base_seconds,
            per_thousand_characters=settings.translation_deadline_seconds_per_1000_characters,
            ceiling=settings.request_timeout_ceiling_seconds,
            fixed=settings.translation_timeout_seconds,
        ),
    )
    summarize = SummarizeSuperpower(
        models.map(lambda model: QueuedSummarizer(model.summarizer, model.queue)),
        DeadlinePolicy(
            base=settings.summary_deadline_base_seconds,
            per_thousand_characters=settings.summary_deadline_seconds_per_1000_characters,
            ceiling=settings.request_timeout_ceiling_seconds,
            fixed=settings.request_timeout_seconds,
        ),
        threads,
        settings.result_cache_ttl_seconds,
        # Messages in another language are read in English by the fast engines, for the
        # checks of who said what.
        reader=translate.readings,
    )
    lifecycle = Lifecycle()

    async def hand_back_waiting(grace_seconds: float) -> None:
        # At a drain, what waits for a model (seconds to minutes each) is refused at once
        # with 503 OVERLOADED: a load balancer sends it to another replica (HAProxy's
        # retry-on 503), where it would otherwise wait out this replica's grace period.
        for model in models.values():
            model.queue.hand_back_waiting()

    lifecycle.on_shutdown(hand_back_waiting)
    version = digest(
        {
            "service": __version__,
            "models": {name or "": model.engine.name for name, model in models.items()},
            "summary": [
                options.notes,
                options.cast,
                options.checks,
                default.summarizer.system_prompt,
                prompts.SYSTEM_ASPECTS,
            ],
            "routes": [
                [route.source, route.target, *(route.engine(tier) for tier in TIERS)]
                for route in router.routes()
            ],
        }
    )
    # Read as often as clients are: a change reaches every replica as soon.
    policies = OrganizationPolicies(auth.database, settings.store_cache_seconds)
    glossaries = GlossaryStore(auth.database, settings.store_cache_seconds)
    usage = UsageStore(auth.database, settings.store_cache_seconds)
    job_store = JobStore(auth.database)

    async def held_by_jobs(tenant: str, organization: str) -> int:
        _, held = await anyio.to_thread.run_sync(job_store.active_count, tenant, organization)
        return held

    operations = Operations(
        summarize=summarize,
        translate=translate,
        lifecycle=lifecycle,
        idempotency=idempotency,
        results=results,
        results_ttl_seconds=settings.result_cache_ttl_seconds,
        version=version,
        metrics=metrics,
        # People's names come from the Apertium analyzers' dictionaries.
        redactor=Redactor(apertium),
        policies=policies,
        glossaries=glossaries,
        usage=usage,
        held_by_jobs=held_by_jobs,
    )
    return Services(
        settings=settings,
        auth=auth,
        models=models,
        engine=default.engine,
        llm_queue=default.queue,
        identifier=identifier,
        default_summarizer=default.summarizer,
        summarize=summarize,
        limits=PayloadLimits(
            max_conversations=settings.max_conversations,
            max_messages=settings.max_messages,
            max_message_chars=settings.max_message_chars,
        ),
        machine_translators=machine_translators,
        fast_queue=fast_queue,
        default_translator=translators.default.translator,
        translate=translate,
        metrics=metrics,
        lifecycle=lifecycle,
        idempotency=idempotency,
        results=results,
        threads=threads,
        operations=operations,
        policies=policies,
        glossaries=glossaries,
        usage=usage,
        jobs=build_jobs(settings, job_store, operations, metrics),
    )
