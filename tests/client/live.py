"""What the client's live tests share: an organization of their own and a client for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.api.stack import new_org
from tests.conftest import LiveServer
from threadwise.client import ThreadwiseClient
from threadwise.services import Services

# Plainly English, so that the fast tier is Apertium or Bergamot, never the model.
ENGLISH = "My parcel 7781 has not arrived yet."


@dataclass(frozen=True)
class Account:
    """A registered client acting for one organization no other test uses (rate limits and
    usage are per organization)."""

    url: str
    organization: str
    client_id: str
    client_secret: str

    def client(self, **options: Any) -> ThreadwiseClient:
        return ThreadwiseClient(
            self.url, client_id=self.client_id, client_secret=self.client_secret, **options
        )


def new_account(live: LiveServer, services: Services, **limits: int) -> Account:
    limits = {"requests_per_minute": 1_000_000, "characters_per_minute": 1_000_000_000} | limits
    organization = new_org()
    registered = services.auth.clients.create("default", [organization], "client tests", **limits)
    return Account(live.url, organization, registered.client.client_id, registered.client_secret)
