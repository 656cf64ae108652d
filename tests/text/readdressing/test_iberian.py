"""Spanish and Portuguese lines readdressed: the third person for the formal register, the
second for the informal one."""

from __future__ import annotations

import pytest

from tests.text.readdressing.readdressed import assert_readdressed
from threadwise.engines.apertium import ApertiumEngine
from threadwise.protocol import Formality
from threadwise.text.readdressing import Readdresser


@pytest.mark.parametrize(
    ("language", "region", "formality", "text", "expected"),
    [
        ("es", None, "informal", "¿Podría enviarnos su factura?", "¿Podrías enviarnos tu factura?"),
        ("es", None, "informal", "Por favor, revise su correo.", "Por favor, revisa tu correo."),
        ("es", None, "formal", "Si quieres, llámanos mañana.", "Si quiere, llámenos mañana."),
        ("pt", "PT", "informal", "Pode verificar a sua fatura?", "Podes verificar a tua fatura?"),
        ("pt", "PT", "formal", "Podes verificar a tua fatura?", "Pode verificar a sua fatura?"),
    ],
)
def test_lines_are_readdressed(
    readdresser: Readdresser,
    apertium: ApertiumEngine,
    language: str,
    region: str | None,
    formality: Formality,
    text: str,
    expected: str,
) -> None:
    assert_readdressed(readdresser, apertium, (language, region, formality, text, expected))


def test_what_does_not_address_the_reader_stays(readdresser: Readdresser) -> None:
    # A third person with its own subject, a noun that is also a verb ("cita").
    line = "El técnico llega el lunes y la cita sigue en pie."
    assert readdresser.rewrite(line, "es", None, "informal") == line
