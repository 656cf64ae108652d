"""Run the Alembic migrations in ``migrations/`` up to the newest, from code."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.environment import NameFilterParentNames, NameFilterType
from sqlalchemy import Engine, text

MIGRATIONS = Path(__file__).parent / "migrations"
# Replicas starting together on one PostgreSQL take turns: the first migrates, the rest
# find nothing to do. (Any fixed 64-bit number; this one spells "twmigrat".)
_LOCK_KEY = 0x74776D6967726174


def ours(name: str | None, type_: NameFilterType, parent_names: NameFilterParentNames) -> bool:
    """Whether a database object is one of the schema's (Alembic's ``include_name``): the
    job queue's tables, in the same PostgreSQL database, are procrastinate's to manage."""
    return not (type_ == "table" and name is not None and name.startswith("procrastinate_"))


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str) -> None:
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
