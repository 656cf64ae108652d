"""The register check: pronouns and possessives by list, verb forms by the dictionaries."""

from __future__ import annotations

import pytest

from threadwise.engines.apertium import ApertiumEngine
from threadwise.text.formality import (
    RegisterCheck,
    addresses_reader,
    applies,
    distinguishes,
    instruction,
)


@pytest.fixture(scope="module")
def check(apertium: ApertiumEngine) -> RegisterCheck:
    return RegisterCheck(apertium.analyze, apertium.analyzed_languages())


@pytest.mark.parametrize(
    ("language", "region", "formal", "informal"),
    [
        ("es", None, "¿Podría confirmar su dirección?", "¿Puedes confirmar tu dirección?"),
        ("es", None, "Escríbanos cuando quiera.", "Escríbenos cuando quieras."),
        ("fr", None, "Pouvez-vous confirmer votre adresse ?", "Peux-tu confirmer ton adresse ?"),
        ("fr", None, "Merci de vérifier vos paramètres.", "Merci de vérifier tes paramètres."),
        ("de", None, "Können Sie Ihre Adresse bestätigen?", "Kannst du deine Adresse bestätigen?"),
        ("pt", "PT", "Pode confirmar a sua morada?", "Podes confirmar a tua morada?"),
        ("pt", "BR", "O senhor pode confirmar o endereço?", "Você pode confirmar o endereço?"),
    ],
)
def test_each_register_is_told_from_the_other(
    check: RegisterCheck, language: str, region: str | None, formal: str, informal: str
) -> None:
    assert check.problems(formal, language, region, "formal", True) == []
    assert check.problems(informal, language, region, "informal", True) == []
    assert check.problems(formal, language, region, "informal", True)
    assert check.problems(informal, language, region, "formal", True)


def test_words_that_may_be_either_decide_nothing(check: RegisterCheck) -> None:
    # "revisa": he checks, or check! "su": his, her, their or your; "Sie" opening a sentence.
    assert check.problems("El técnico revisa su equipo.", "es", None, "formal", False) == []
    assert check.problems("El técnico revisa su equipo.", "es", None, "informal", False) == []
    assert check.problems("Sie kommen morgen.", "de", None, "informal", False) == []
    # After an article, a word the dictionary knows only as a verb is a noun ("encomendas").
    assert check.problems("Veja a secção de encomendas.", "pt", "PT", "formal", False) == []


def test_an_informal_line_to_the_reader_must_show_it(check: RegisterCheck) -> None:
    assert check.problems("Su pedido ha llegado.", "es", None, "informal", True) == [
        "(no informal form)"
    ]
    # A line to no one in particular is the same in both registers.
    assert check.problems("El pedido ha llegado.", "es", None, "informal", False) == []


def test_what_has_registers_and_what_the_model_is_told() -> None:
    assert distinguishes("fr") and not distinguishes("en")
    assert applies("formal", "de") and not applies("default", "de") and not applies("formal", "en")
    assert "usted" in instruction("es", None, "formal")
    assert "você" in instruction("pt", "BR", "informal")
    assert instruction("en", None, "formal") == instruction("es", None, "default") == ""


def test_who_a_message_speaks_to() -> None:
    assert addresses_reader("Could you send your order number?", "en")
    assert not addresses_reader("Thank you! The order has shipped.", "en")
    assert addresses_reader("¿Puedes enviarlo?", "es") is False  # a verb alone: not known
    assert addresses_reader("Vous pouvez l'envoyer.", "fr")
    assert not addresses_reader("Il est parti.", "it")
