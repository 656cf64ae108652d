"""What the tests of the stores kept in the database share: a clock they move, a tenant."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from threadwise.db.database import Database
from threadwise.db.tables import Tenant


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tenant(database: Database) -> str:
    """A new tenant, as its first client would leave it."""
    name = f"t{uuid.uuid4().hex[:10]}"
    with database.session() as session, session.begin():
        session.add(Tenant(name=name, created_at=datetime.now(UTC)))
    return name
