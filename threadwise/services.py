"""The composition root: builds engines, queues and superpowers once, from the settings.

Routes, the WebSocket endpoint and the CLI all get what they need from here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from threadwise.auth.audit import AuditLog
from threadwise.auth.clients import ClientRegistry
from threadwise.auth.credentials import SecretHasher
from threadwise.auth.gate import Gatekeeper, Limits
from threadwise.auth.grant import ClientCredentialsGrant, FailureLimits
from threadwise.auth.keys import KeyRing, load_key_ring
from threadwise.auth.ratelimit import InProcessRateLimiter, RateLimiter, RedisRateLimiter
from threadwise.auth.tokens import ExternalIssuer, TokenIssuer, TokenVerifier
from threadwise.config import ConfigurationError, Settings
from threadwise.db.database import Database, database_url
from threadwise.engines.base import ChatEngine
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.model_files import DEFAULT_MODEL, ModelFileError, prepare_model
from threadwise.engines.queue import WorkQueue
from threadwise.payload import PayloadLimits
from threadwise.superpowers.summarize import Summarizer, SummarizeSuperpower, SummaryOptions
from threadwise.text.languages import LanguageIdentifier

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
        self.limiter.close()
        self.database.close()


def open_database(settings: Settings) -> Database:
    """Connect to the configured database and bring its schema up to date."""
    database = Database(database_url(settings))
    database.upgrade()
    return database


def build_client_registry(settings: Settings, database: Database | None = None) -> ClientRegistry:
    database = database or open_database(settings)
    return ClientRegistry(database, SecretHasher(), settings.client_cache_seconds)


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


@dataclass
class Services:
    settings: Settings
    auth: AuthServices
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
        self.auth.close()


def build_services(settings: Settings, progress: Callable[[str], None] = log.info) -> Services:
    """Build everything from the settings; joins and verifies the default model if needed."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    auth = build_auth_services(settings)  # first: a settings mistake shows before the model
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
        auth=auth,
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
