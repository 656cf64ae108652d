"""Who may call: the database, clients, keys, tokens, the gate and the grant; needs no
model, so the CLI builds it alone."""

from __future__ import annotations

from dataclasses import dataclass

from threadwise.auth.api_keys import ApiKeyStore
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
    api_keys: ApiKeyStore

    def close(self) -> None:
        self.grant.close()
        self.limiter.close()
        self.database.close()


def open_database(settings: Settings) -> Database:
    """Connect to the configured database and bring its schema up to date."""
    database = Database(database_url(settings), pool_size=settings.database_pool_size)
    database.upgrade()
    return database


def build_client_registry(settings: Settings, database: Database | None = None) -> ClientRegistry:
    database = database or open_database(settings)
    return ClientRegistry(database, SecretHasher(), settings.store_cache_seconds)


def build_auth_services(settings: Settings) -> AuthServices:
    """Connect to the database (migrating it), load the keys, build the gate and the grant."""
    database = open_database(settings)
    clients = build_client_registry(settings, database)
    api_keys = ApiKeyStore(database, SecretHasher(), clients, settings.store_cache_seconds)
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
        api_keys,
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
    return AuthServices(database, clients, audit, keys, issuer, limiter, gate, grant, api_keys)


def _external_issuer(settings: Settings) -> ExternalIssuer | None:
    if settings.jwt_jwks_url is None and settings.jwt_external_issuer is None:
        return None
    if settings.jwt_jwks_url is None or settings.jwt_external_issuer is None:
        raise ConfigurationError(
            "Tokens of an external identity provider need both THREADWISE_JWT_EXTERNAL_ISSUER "
            "(its 'iss') and THREADWISE_JWT_JWKS_URL (where it publishes its keys)."
        )
    return ExternalIssuer(settings.jwt_external_issuer, settings.jwt_jwks_url)
