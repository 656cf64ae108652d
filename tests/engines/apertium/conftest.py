"""One engine for the package's tests: its pipelines started once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from threadwise.engines.apertium import ApertiumEngine


@pytest.fixture(scope="package")
def apertium() -> Iterator[ApertiumEngine]:
    engine = ApertiumEngine(["en", "es", "fr", "de", "pt"])
    engine.load()
    yield engine
    engine.close()
