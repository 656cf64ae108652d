"""Alembic's entry point, both from code (``threadwise.db.migrate``) and from the
``alembic`` command line (which reads the database URL from the threadwise settings)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from threadwise.config import Settings
from threadwise.db.database import Database, database_url
from threadwise.db.migrate import ours
from threadwise.db.tables import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite alters tables by copying them; batch mode does that for us.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=ours,  # not the job queue's tables (procrastinate's own schema)
    )
    with context.begin_transaction():
        context.run_migrations()


def _main() -> None:
    shared = context.config.attributes.get("connection")
    if shared is not None:
        _run(shared)
        return
    database = Database(database_url(Settings()))
    try:
        with database.engine.begin() as connection:
            _run(connection)
    finally:
        database.close()


_main()
