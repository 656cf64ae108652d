"""Connect to the database the settings name, and bring its schema up to date."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, sessionmaker

from threadwise.config import Settings


def database_url(settings: Settings) -> str:
    """``settings.database_url``, else a SQLite file in the data directory."""
    if settings.database_url:
        return settings.database_url
    return f"sqlite:///{settings.data_dir / 'threadwise.db'}"


def _normalized(url: str) -> URL:
    parsed = make_url(url)
    # psycopg 3 is the driver we ship; a bare postgresql:// would ask for psycopg2.
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


class Database:
    """An engine and a session factory; safe to share between threads."""

    def __init__(self, url: str, *, pool_size: int = 16) -> None:
        parsed = _normalized(url)
        if parsed.get_backend_name() == "sqlite":
            if parsed.database and parsed.database != ":memory:":
                _create_private(Path(parsed.database))
            self.engine = create_engine(parsed, connect_args={"timeout": 30})
            event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            # Connections kept for reuse: one opened per statement past the pool would cost
            # more than the statement (a server process forked, authenticated).
            self.engine = create_engine(
                parsed, pool_pre_ping=True, pool_size=pool_size, max_overflow=pool_size
            )
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def session(self) -> Session:
        return self.sessions()

    def upgrade(self) -> None:
        from threadwise.db.migrate import upgrade  # alembic is only needed here

        upgrade(self.engine)

    def close(self) -> None:
        self.engine.dispose()


def _create_private(path: Path) -> None:
    """Create the SQLite file readable by its owner only: it holds the secrets' hashes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))


def _sqlite_pragmas(connection: Any, _: Any) -> None:
    cursor = connection.cursor()
    # WAL lets the CLI write while the service reads; foreign keys are off by default.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
