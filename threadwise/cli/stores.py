"""The stores a command opens, closed when it ends.

``threadwise.services`` is imported when a store is opened, not before: it imports the
engines, which commands that open no store (``--help``, ``keys``) need not load.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadwise.auth.api_keys import ApiKeyStore
from threadwise.auth.clients import ClientRegistry
from threadwise.auth.credentials import SecretHasher
from threadwise.config import Settings
from threadwise.db.database import Database
from threadwise.organizations.glossaries import GlossaryStore
from threadwise.organizations.policies import OrganizationPolicies
from threadwise.webhooks.secret_store import WebhookSecretStore


@contextmanager
def database(settings: Settings) -> Iterator[Database]:
    from threadwise.services import open_database

    opened = open_database(settings)
    try:
        yield opened
    finally:
        opened.close()


@contextmanager
def client_registry(settings: Settings) -> Iterator[ClientRegistry]:
    from threadwise.services import build_client_registry

    registry = build_client_registry(settings)
    try:
        yield registry
    finally:
        registry.database.close()


@contextmanager
def organization_policies(settings: Settings) -> Iterator[OrganizationPolicies]:
    with database(settings) as opened:
        yield OrganizationPolicies(opened)


@contextmanager
def glossary_store(settings: Settings) -> Iterator[GlossaryStore]:
    with database(settings) as opened:
        yield GlossaryStore(opened)


@contextmanager
def api_key_store(settings: Settings) -> Iterator[ApiKeyStore]:
    with client_registry(settings) as registry:
        yield ApiKeyStore(registry.database, SecretHasher(), registry, settings.store_cache_seconds)


@contextmanager
def webhook_secret_store(settings: Settings) -> Iterator[WebhookSecretStore]:
    with database(settings) as opened:
        yield WebhookSecretStore(opened)
