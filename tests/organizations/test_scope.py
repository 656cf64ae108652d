"""The tenant and organization a store is asked about."""

from __future__ import annotations

import pytest

from threadwise.db.database import Database
from threadwise.organizations.scope import organization_id, require_tenant
from threadwise.protocol import MAX_ID_LENGTH


def test_an_organization_id_is_stripped() -> None:
    assert organization_id("  org-a\n") == "org-a"
    assert organization_id("o" * MAX_ID_LENGTH) == "o" * MAX_ID_LENGTH


@pytest.mark.parametrize(
    ("value", "message"), [(" ", "must not be empty"), ("o" * (MAX_ID_LENGTH + 1), "at most")]
)
def test_an_empty_or_long_organization_id_is_refused(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        organization_id(value)


def test_a_tenant_must_exist_and_the_error_says_how_to_create_it(
    database: Database, tenant: str
) -> None:
    with database.session() as session:
        require_tenant(session, tenant)
        with pytest.raises(ValueError, match="clients create --tenant nobody"):
            require_tenant(session, "nobody")
