"""Fixtures for the text modules that read words with Apertium's dictionaries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from threadwise.engines.apertium import ApertiumEngine


@pytest.fixture(scope="session")
def apertium() -> Iterator[ApertiumEngine]:
    engine = ApertiumEngine(["en", "es", "fr", "de", "pt"])
    yield engine
    engine.close()
