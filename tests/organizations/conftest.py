"""What the tests of the stores kept in the database share: a clock they move, a tenant."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from tests.clock import ManualClock
from threadwise.db.database import Database
from threadwise.db.tables import Tenant


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def tenant(database: Database) -> str:
    """A new tenant, as its first client would leave it."""
    name = f"t{uuid.uuid4().hex[:10]}"
    with database.session() as session, session.begin():
        session.add(Tenant(name=name, created_at=datetime.now(UTC)))
    return name
