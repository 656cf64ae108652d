"""`threadwise migrate` (and the other commands that get a machine ready)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import run


def test_migrate_brings_the_schema_to_the_newest_revision(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine

    from threadwise.db.migrate import alembic_config

    newest = ScriptDirectory.from_config(alembic_config()).get_current_head()
    for _ in range(2):  # the second time there is nothing to do
        code, _, err = run(capsys, "migrate")
        assert code == 0 and "up to date" in err
        engine = create_engine(f"sqlite:///{data_dir / 'threadwise.db'}")
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == newest
        engine.dispose()
