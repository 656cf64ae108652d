from __future__ import annotations

import pytest

from threadwise.engines.apertium import ApertiumEngine
from threadwise.text.readdressing import Readdresser


@pytest.fixture(scope="module")
def readdresser(apertium: ApertiumEngine) -> Readdresser:
    return Readdresser(apertium.analyze, apertium.generate, apertium.generated_languages())
