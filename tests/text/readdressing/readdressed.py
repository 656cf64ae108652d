"""Checking a line readdressed by the ``Readdresser`` (the fixture in ``conftest``)."""

from __future__ import annotations

from threadwise.engines.apertium import ApertiumEngine
from threadwise.protocol import Formality
from threadwise.text.formality import NO_INFORMAL_FORM, RegisterCheck
from threadwise.text.readdressing import Readdresser


def assert_readdressed(
    readdresser: Readdresser,
    apertium: ApertiumEngine,
    line: tuple[str, str | None, Formality, str, str],
) -> None:
    """``line`` (language, region, formality, text, expected) rewritten as expected, with no
    word of the other register left ("Patiente" may be a request or a statement)."""
    language, region, formality, text, expected = line
    rewritten = readdresser.rewrite(text, language, region, formality)
    assert rewritten == expected
    check = RegisterCheck(apertium.analyze, apertium.analyzed_languages())
    found = check.problems(rewritten, language, region, formality, True)
    assert [word for word in found if word != NO_INFORMAL_FORM] == []
