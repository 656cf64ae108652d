"""An app built like the service's, for tests that stop before the model: the model is never
loaded, and a request that gets past authentication is recognized by the superpower's own
answer to a language it does not write (422 UNSUPPORTED_LANGUAGE), which comes before the
model is ever asked."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
from fastapi.testclient import TestClient

from tests.conftest import minimal_body, model_free_settings
from threadwise.api.app import create_app
from threadwise.auth.clients import ClientSecret
from threadwise.services import Services, build_services

BASE_DOMAIN = "threadwise.test"
HS_SECRET = "an HS256 secret for the tests, long enough to be accepted"


def host(tenant: str) -> str:
    return f"{tenant}.{BASE_DOMAIN}"


def new_org() -> str:
    """An organization no other test uses: rate limits are per organization."""
    return f"org-{uuid.uuid4().hex[:12]}"


class AuthStack:
    def __init__(self, services: Services, http: TestClient) -> None:
        self.services = services
        self.http = http

    def register(self, *orgs: str, tenant: str = "acme", **limits: Any) -> ClientSecret:
        return self.services.auth.clients.create(tenant, orgs or [new_org()], "test", **limits)

    def fetch_token(self, credentials: ClientSecret, tenant: str | None = None) -> str:
        response = self.http.post(
            "/auth/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(credentials.client.client_id, credentials.client_secret),
            headers={"Host": host(tenant or credentials.client.tenant)},
        )
        assert response.status_code == 200, response.text
        token: str = response.json()["access_token"]
        return token

    def call(
        self,
        organization: str,
        token: str | None = None,
        *,
        tenant: str = "acme",
        authorization: str | None = None,
        content: str = "My parcel 7781 is late.",
    ) -> httpx2.Response:
        """POST /message/summarize for ``organization``; past the gate it answers 422."""
        body = minimal_body(
            context={"organizationId": organization},
            settings={"overrideOutputLanguage": "tlh"},
        )
        body["request"]["scope"]["conversations"][0]["messages"][0]["content"] = content
        headers = {"Host": host(tenant)}
        if authorization is not None:
            headers["Authorization"] = authorization
        elif token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.post("/message/summarize", json=body, headers=headers)


def passed_the_gate(response: httpx2.Response) -> bool:
    return response.status_code == 422 and (
        response.json()["error"]["code"] == "UNSUPPORTED_LANGUAGE"
    )


@contextmanager
def auth_stack(data_dir: Path, **settings: Any) -> Iterator[AuthStack]:
    settings.setdefault("base_domain", BASE_DOMAIN)
    settings.setdefault("jwt_secret", HS_SECRET)
    # Many tests share this app and its address; only the tests of that limit lower it.
    settings.setdefault("token_failures_per_minute_per_address", 100_000)
    services = build_services(model_free_settings(data_dir, **settings))
    try:
        app = create_app(services.serving_context())
        with TestClient(app, base_url=f"http://{host('acme')}") as http:
            yield AuthStack(services, http)
    finally:
        services.close()
