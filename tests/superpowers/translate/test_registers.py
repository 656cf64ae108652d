"""A requested formality, kept by the model and by rewriting the machine engines' lines."""

from __future__ import annotations

import asyncio

import pytest

from tests.superpowers.translate.requests import body
from threadwise.protocol import Formality
from threadwise.services import Services
from threadwise.superpowers.translate.registers import Registers

pytestmark = pytest.mark.usefixtures("loaded_engines")


def test_the_fast_tier_rewrites_its_engines_lines_into_the_register(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = services.default_translator.registers.check
    text = ["Can you check your invoice and send us your address?"]
    for formality in ("formal", "informal"):
        request = body(
            text, targetLanguages=["es", "en"], translationMode="fast", formality=formality
        )
        [[spanish], [english]] = asyncio.run(services.translate(request))
        assert spanish.engine == "apertium:eng-spa", spanish
        assert check.problems(spanish.content, "es", None, formality, True) == [], spanish
        assert english.engine == "none"  # not translated; English has one register anyway
    # An engine's line that stays in the other register says so.
    monkeypatch.setattr(services.default_translator, "registers", Registers(check))
    request = body(text, targetLanguages=["es"], translationMode="fast", formality="formal")
    [[spanish]] = asyncio.run(services.translate(request))
    assert spanish.engine == "apertium:eng-spa (formality not applied)", spanish


@pytest.mark.model
def test_the_model_writes_in_the_register_asked_for(services: Services) -> None:
    check = services.default_translator.llm.registers.check
    text = "Could you check your inbox and tell us if you received our email?"
    cases: tuple[tuple[str, Formality], ...] = (
        ("pt-PT", "informal"),
        ("fr", "informal"),
        ("de", "formal"),
    )
    for tag, formality in cases:
        request = body(
            [text], targetLanguages=[tag], translationMode="quality", formality=formality
        )
        [[item]] = asyncio.run(services.translate(request))
        # en→pt's quality engine, Bergamot, is not told: its lines are rewritten.
        assert (item.engine or "").startswith("bergamot" if tag == "pt-PT" else "llama.cpp"), item
        language, _, region = tag.partition("-")
        found = check.problems(item.content, language, region or None, formality, True)
        assert found == [], (item.content, found)
