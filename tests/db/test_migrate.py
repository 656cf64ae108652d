"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from threadwise.db.database import Database
from threadwise.db.migrate import downgrade, ours, upgrade
from threadwise.db.tables import Base

TABLES = {"tenants", "clients", "client_organizations", "audit_events", "alembic_version"}


def test_migrations_match_the_models(database_url: str) -> None:
    database = Database(database_url)
    try:
        database.upgrade()
        database.upgrade()  # a second start finds nothing to do
        assert set(inspect(database.engine).get_table_names()) >= TABLES
        with database.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"include_name": ours})
            differences = compare_metadata(context, Base.metadata)
        assert differences == []
    finally:
        database.close()


def test_down_and_up_again(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        upgrade(database.engine)
        downgrade(database.engine, "base")
        assert set(inspect(database.engine).get_table_names()) == {"alembic_version"}
        upgrade(database.engine)
        assert set(inspect(database.engine).get_table_names()) >= TABLES
    finally:
        database.close()
