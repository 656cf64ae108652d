"""The composition root: builds engines, queues and superpowers once, from the settings.

Routes, the WebSocket endpoint and the CLI all get what they need from here.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from threadwise import __version__
from threadwise.auth.audit import AuditLog
from threadwise.auth.clients import ClientRegistry
from threadwise.auth.credentials import SecretHasher
from threadwise.auth.gate import Gatekeeper, Limits
from threadwise.auth.grant import ClientCredentialsGrant, FailureLimits
from threadwise.auth.keys import KeyRing, load_key_ring
from threadwise.auth.ratelimit import InProcessRateLimiter, RateLimiter, RedisRateLimiter
from threadwise.auth.tokens import ExternalIssuer, TokenIssuer, TokenVerifier
from threadwise.cache import Cache, InProcessCache, RedisCache
from threadwise.config import ConfigurationError, EngineChoice, RemoteEngine, Settings
from threadwise.db.database import Database, database_url
from threadwise.deadlines import DeadlinePolicy
from threadwise.engines.apertium import ApertiumEngine
from threadwise.engines.base import ChatEngine
from threadwise.engines.bergamot import BergamotEngine
from threadwise.engines.cores import CoreShare
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.model_files import DEFAULT_MODEL, ModelFileError, prepare_model
from threadwise.engines.profiles import Profiles
from threadwise.engines.remote import RemoteChatEngine
from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.engines.scheduler import Priority, Scheduler
from threadwise.engines.translation import MachineTranslator
from threadwise.metrics import Metrics
from threadwise.organizations.glossaries import GlossaryStore
from threadwise.organizations.policies import OrganizationPolicies
from threadwise.organizations.usage import UsageStore
from threadwise.payload import PayloadLimits
from threadwise.serving.admission import Admission
from threadwise.serving.context import ServingContext
from threadwise.serving.idempotency import (
    IdempotencyStore,
    InProcessIdempotencyStore,
    RedisIdempotencyStore,
)
from threadwise.serving.languages import languages_document
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
from threadwise.superpowers.translate import QueuedTranslator, TranslateSuperpower, Translator
from threadwise.superpowers.translate.llm import LlmTranslator
from threadwise.superpowers.translate.registers import Registers
from threadwise.superpowers.translate.routing import LLM, TIERS, TranslationRouter
from threadwise.text.formality import RegisterCheck
from threadwise.text.languages import TRANSLATION_LANGUAGES, LanguageIdentifier
from threadwise.text.readdressing import Readdresser

log = logging.getLogger("threadwise")


@dataclass
class AuthServices:
    """Everything that decides who may call; needs no model, so the CLI builds it alone."""

    database: Database
    clients: ClientRegistry
    audit: AuditLog
    keys: KeyRing
    issuer: TokenIssuer
    limiter: RateLimiter
    gate: Gatekeeper
    grant: ClientCredentialsGrant

    def close(self) -> None:
        self.grant.close()
        self.limiter.close()
        self.database.close()


def open_database(settings: Settings) -> Database:
    """Connect to the configured database and bring its schema up to date."""
    database = Database(database_url(settings))
    database.upgrade()
    return database


def build_client_registry(settings: Settings, database: Database | None = None) -> ClientRegistry:
    database = database or open_database(settings)
    return ClientRegistry(database, SecretHasher(), settings.store_cache_seconds)


def build_auth_services(settings: Settings) -> AuthServices:
    """Connect to the database (migrating it), load the keys, build the gate and the grant."""
    database = open_database(settings)
    clients = build_client_registry(settings, database)
    audit = AuditLog(database)
    keys = load_key_ring(settings)
    issuer = TokenIssuer(keys, settings.jwt_issuer, settings.access_token_seconds)
    verifier = TokenVerifier(
        keys,
        settings.jwt_issuer,
        settings.access_token_seconds,
        settings.jwt_leeway_seconds,
        external=_external_issuer(settings),
    )
    limiter: RateLimiter = (
        RedisRateLimiter(settings.redis_url) if settings.redis_url else InProcessRateLimiter()
    )
    gate = Gatekeeper(
        verifier,
        clients,
        limiter,
        settings.base_domain,
        Limits(
            requests_per_minute=settings.rate_limit_requests_per_minute,
            characters_per_minute=settings.rate_limit_characters_per_minute,
        ),
    )
    grant = ClientCredentialsGrant(
        clients,
        issuer,
        audit,
        limiter,
        FailureLimits(
            per_client_per_minute=settings.token_failures_per_minute_per_client,
            per_address_per_minute=settings.token_failures_per_minute_per_address,
        ),
        settings.base_domain,
    )
    return AuthServices(database, clients, audit, keys, issuer, limiter, gate, grant)


def _external_issuer(settings: Settings) -> ExternalIssuer | None:
    if settings.jwt_jwks_url is None and settings.jwt_external_issuer is None:
        return None
    if settings.jwt_jwks_url is None or settings.jwt_external_issuer is None:
        raise ConfigurationError(
            "Tokens of an external identity provider need both THREADWISE_JWT_EXTERNAL_ISSUER "
            "(its 'iss') and THREADWISE_JWT_JWKS_URL (where it publishes its keys)."
        )
    return ExternalIssuer(settings.jwt_external_issuer, settings.jwt_jwks_url)


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
    # engine, llm_queue, summarizer and translator are the default's.
    models: Profiles[LanguageModel]
    engine: ChatEngine
    llm_queue: Scheduler
    identifier: LanguageIdentifier
    summarizer: Summarizer
    summarize: SummarizeSuperpower
    limits: PayloadLimits
    # Translation: the fast engines run on their own threads, never behind the model's queue.
    machine_translators: dict[str, MachineTranslator]
    fast_queue: Scheduler
    translator: Translator
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
            languages=functools.partial(languages_document, self.translator.router),
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


def build_services(settings: Settings, progress: Callable[[str], None] = log.info) -> Services:
    """Build everything from the settings; joins and verifies the default model if needed."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    auth = build_auth_services(settings)  # first: a settings mistake shows before the model
    metrics = Metrics()
    cores = CoreShare(settings.llm_threads)
    identifier = LanguageIdentifier()
    options = SummaryOptions(notes=settings.summary_notes)
    languages = tuple(TRANSLATION_LANGUAGES)
    engines = _engines(settings, metrics, cores, progress)
    apertium = ApertiumEngine(languages)
    # A translation asked in a register is checked, and rewritten, with the dictionaries.
    registers = Registers(
        RegisterCheck(apertium.analyze, apertium.analyzed_languages()),
        Readdresser(apertium.analyze, apertium.generate, apertium.generated_languages()),
    )
    models = engines.map(
        lambda built: LanguageModel(
            built.engine,
            built.queue,
            Summarizer(built.engine, identifier, options),
            LlmTranslator(built.engine, languages, identifier, registers=registers),
            built.read_ahead,
            built.close,
        )
    )
    default = models.default
    machine_translators: dict[str, MachineTranslator] = {
        "apertium": apertium,
        "bergamot": BergamotEngine(),
    }
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
    metrics.watch_queue("translate", lambda: fast_queue.depth, settings.translation_queue_size)
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
    )
    return Services(
        settings=settings,
        auth=auth,
        models=models,
        engine=default.engine,
        llm_queue=default.queue,
        identifier=identifier,
        summarizer=default.summarizer,
        summarize=summarize,
        limits=PayloadLimits(
            max_conversations=settings.max_conversations,
            max_messages=settings.max_messages,
            max_message_chars=settings.max_message_chars,
        ),
        machine_translators=machine_translators,
        fast_queue=fast_queue,
        translator=translators.default.translator,
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
    )


@dataclass(frozen=True)
class _Engine:
    engine: ChatEngine
    queue: Scheduler
    read_ahead: bool
    close: Callable[[], None]


def _engines(
    settings: Settings, metrics: Metrics, cores: CoreShare, progress: Callable[[str], None]
) -> Profiles[_Engine]:
    """The default engine and each profile's, and their queues; profiles configured alike
    share one engine. The embedded model is prepared only when some profile uses it."""
    built: list[tuple[EngineChoice, _Engine]] = []

    def engine_for(choice: EngineChoice, queue_name: str) -> _Engine:
        for known, engine in built:
            if known == choice:
                return engine
        if isinstance(choice, RemoteEngine):
            engine = _remote_engine(choice, settings, metrics, queue_name)
        else:
            engine = _embedded_engine(settings, metrics, cores, progress, queue_name)
        capacity = engine.queue.capacity
        metrics.watch_queue(queue_name, lambda: engine.queue.depth, capacity)
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
) -> _Engine:
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
    )
    # One worker: llama.cpp's context takes one call at a time.
    queue = Scheduler(
        settings.llm_queue_size,
        name=queue_name,
        policy=settings.llm_scheduling,
        observer=metrics,
        nice=settings.llm_nice,
    )
    return _Engine(engine, queue, True, lambda: None)


def _remote_engine(
    server: RemoteEngine, settings: Settings, metrics: Metrics, queue_name: str
) -> _Engine:
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
    return _Engine(engine, queue, False, engine.close)
