"""Connecting to the database the settings name: SQLite by default, PostgreSQL through psycopg."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from threadwise.config import Settings
from threadwise.db.database import Database, database_url


def test_sqlite_file_is_private(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'state' / 'db.sqlite'}")
    database.upgrade()
    database.close()
    assert (tmp_path / "state" / "db.sqlite").stat().st_mode & 0o077 == 0


def test_postgresql_url_without_a_driver_uses_psycopg() -> None:
    database = Database("postgresql://user:pw@127.0.0.1:1/db")
    assert database.engine.dialect.driver == "psycopg"
    assert database.dialect == "postgresql"
    database.close()


def test_the_default_is_a_sqlite_file_in_the_data_directory(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=None)
    assert database_url(settings) == f"sqlite:///{tmp_path / 'threadwise.db'}"
    named = Settings(data_dir=tmp_path, database_url="postgresql://db/threadwise")
    assert database_url(named) == "postgresql://db/threadwise"


def test_sqlite_checks_foreign_keys_and_lets_readers_and_a_writer_share(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        assert database.dialect == "sqlite"
        with database.session() as session:
            assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    finally:
        database.close()
