from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.stack import AuthStack, auth_stack


@pytest.fixture(scope="session")
def stack(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthStack]:
    """An app on each database (SQLite, PostgreSQL), shared by the tests of that database."""
    with auth_stack(tmp_path_factory.mktemp("stack"), database_url=database_url) as built:
        yield built
