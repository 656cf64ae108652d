"""French lines readdressed: vous and the plural for the formal register, tu for the other."""

from __future__ import annotations

import pytest

from tests.text.readdressing.readdressed import assert_readdressed
from threadwise.engines.apertium import ApertiumEngine
from threadwise.protocol import Formality
from threadwise.text.readdressing import Readdresser


@pytest.mark.parametrize(
    ("formality", "text", "expected"),
    [
        ("informal", "Pouvez-vous vérifier votre facture ?", "Peux-tu vérifier ta facture ?"),
        ("informal", "Veuillez patienter.", "Patiente."),
        ("informal", "Nous vous aiderons.", "Nous t'aiderons."),
        ("formal", "Tu peux vérifier ton reçu.", "Vous pouvez vérifier votre reçu."),
    ],
)
def test_lines_are_readdressed(
    readdresser: Readdresser,
    apertium: ApertiumEngine,
    formality: Formality,
    text: str,
    expected: str,
) -> None:
    assert_readdressed(readdresser, apertium, ("fr", None, formality, text, expected))


def test_what_does_not_address_the_reader_stays(readdresser: Readdresser) -> None:
    assert readdresser.rewrite("Sans objet.", "fr", None, "informal") == "Sans objet."
