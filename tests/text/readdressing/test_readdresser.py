"""Readdressing: a line rewritten into the other register with the dictionaries."""

from __future__ import annotations

import pytest

from threadwise.engines.apertium import ApertiumEngine
from threadwise.protocol import Formality
from threadwise.text.formality import NO_INFORMAL_FORM, RegisterCheck
from threadwise.text.readdressing import Readdresser


@pytest.fixture(scope="module")
def readdresser(apertium: ApertiumEngine) -> Readdresser:
    return Readdresser(apertium.analyze, apertium.generate, apertium.generated_languages())


@pytest.mark.parametrize(
    ("language", "region", "formality", "text", "expected"),
    [
        ("es", None, "informal", "¿Podría enviarnos su factura?", "¿Podrías enviarnos tu factura?"),
        ("es", None, "informal", "Por favor, revise su correo.", "Por favor, revisa tu correo."),
        ("es", None, "formal", "Si quieres, llámanos mañana.", "Si quiere, llámenos mañana."),
        (
            "fr",
            None,
            "informal",
            "Pouvez-vous vérifier votre facture ?",
            "Peux-tu vérifier ta facture ?",
        ),
        ("fr", None, "informal", "Veuillez patienter.", "Patiente."),
        ("fr", None, "informal", "Nous vous aiderons.", "Nous t'aiderons."),
        ("fr", None, "formal", "Tu peux vérifier ton reçu.", "Vous pouvez vérifier votre reçu."),
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
    rewritten = readdresser.rewrite(text, language, region, formality)
    assert rewritten == expected
    check = RegisterCheck(apertium.analyze, apertium.analyzed_languages())
    # No word of the other register is left ("Patiente" may be a request or a statement).
    found = check.problems(rewritten, language, region, formality, True)
    assert [word for word in found if word != NO_INFORMAL_FORM] == []


def test_what_does_not_address_the_reader_stays(readdresser: Readdresser) -> None:
    # A third person with its own subject, a noun that is also a verb ("cita").
    line = "El técnico llega el lunes y la cita sigue en pie."
    assert readdresser.rewrite(line, "es", None, "informal") == line
    assert readdresser.rewrite("Sans objet.", "fr", None, "informal") == "Sans objet."
    # Languages without the dictionaries, and "default", are left alone.
    assert readdresser.rewrite("Ciao, come stai?", "it", None, "formal") == "Ciao, come stai?"
    assert readdresser.rewrite("Revise su correo.", "es", None, "default") == "Revise su correo."
