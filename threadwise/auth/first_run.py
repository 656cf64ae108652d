"""The local development client, created when the service first starts with no client."""

from __future__ import annotations

from threadwise.auth.clients import ClientRegistry, ClientSecret
from threadwise.auth.tenancy import DEFAULT_TENANT
from threadwise.config import Settings

FIRST_RUN_CLIENT_NAME = "local development (created on first run)"
# The organization of the README's example request (examples/summarize-request.json).
FIRST_RUN_ORGANIZATIONS = ("org-acme",)


def ensure_first_run_client(clients: ClientRegistry, settings: Settings) -> ClientSecret | None:
    """Create the development client if there is no client at all; never in production."""
    if settings.production or clients.count() > 0:
        return None
    return clients.create(DEFAULT_TENANT, FIRST_RUN_ORGANIZATIONS, FIRST_RUN_CLIENT_NAME)
