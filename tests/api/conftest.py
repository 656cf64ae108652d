from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.api.stack import AuthStack, auth_stack
from tests.conftest import model_free_settings
from threadwise.api.app import create_app
from threadwise.services import Services, build_services


@pytest.fixture(scope="session")
def stack(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthStack]:
    """An app on each database (SQLite, PostgreSQL), shared by the tests of that database."""
    with auth_stack(tmp_path_factory.mktemp("stack"), database_url=database_url) as built:
        yield built


@pytest.fixture(scope="module")
def engineless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """Services whose engines are never loaded: for the routes that use none."""
    services = build_services(model_free_settings(tmp_path_factory.mktemp("engineless")))
    yield services
    services.close()


@pytest.fixture(scope="module")
def pages(engineless: Services) -> Iterator[TestClient]:
    """The app with no engines loaded and no token: for the pages and files anyone may read."""
    with TestClient(create_app(engineless.serving_context())) as client:
        yield client
