"""Glossary terms and kept terms, in each engine's translation."""

from __future__ import annotations

import asyncio

import pytest

from tests.superpowers.translate.requests import GLOSSARY_ES, GLOSSARY_PT, KEEP, body
from threadwise.services import Services
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.terms import Glossary, Term

pytestmark = pytest.mark.usefixtures("loaded_engines")


@pytest.mark.parametrize("target", ["es-ES", "pt-BR"])
def test_glossary_terms_and_kept_terms_in_the_fast_tier(services: Services, target: str) -> None:
    power = services.translate
    text = "Your refund is on the **dashboard** of Acme Cloud, next to the Dashboard link."
    request = body([text], targetLanguages=[target], translationMode="fast")
    if target == "es-ES":
        [[item]] = asyncio.run(power(request, (GLOSSARY_ES, GLOSSARY_PT), KEEP))
        assert "reembolso" in item.content and "**panel de control**" in item.content
        assert "Panel de control" in item.content  # the capital kept
    else:
        # Not the pair's default: named by the request.
        named = body([text], targetLanguages=[target], translationMode="fast", glossaryId="g-2")
        [[item]] = asyncio.run(power(named, (GLOSSARY_ES, GLOSSARY_PT), KEEP))
        assert "**painel**" in item.content
    assert "Acme Cloud" in item.content and "[TERM_" not in item.content
    assert not structure_problems(text, item.content)


@pytest.mark.model
def test_glossary_terms_in_the_models_translation(services: Services) -> None:
    text = "I still have not received the refund for my order."
    request = body([text], targetLanguages=["es-ES"], translationMode="quality")
    [[item]] = asyncio.run(services.translate(request, (GLOSSARY_ES,), ()))
    assert "reembolso" in item.content and (item.engine or "").startswith("llama.cpp"), item


def test_only_the_sentence_that_lost_a_term_is_translated_again(services: Services) -> None:
    # Bergamot words "top-up" in context nothing like alone ("recarte"): that sentence is
    # translated again with a placeholder; the other keeps the engine's own wording.
    glossary = Glossary(
        "g-3", "org-1", "plans", "en", "pt",
        (Term("top-up", "recarga"), Term("data allowance", "franquia de dados")),
        default=True,
    )  # fmt: skip
    text = (
        "Your data allowance resets on the 5th. Until then, you can buy a 2 GB top-up in the app."
    )
    request = body([text], targetLanguages=["pt-BR"], translationMode="fast")
    [[item]] = asyncio.run(services.translate(request, (glossary,), ()))
    [plain] = asyncio.run(
        services.translate(
            body([text.split(". ")[0] + "."], targetLanguages=["pt-BR"], translationMode="fast")
        )
    )
    first, second = item.content.split(". ", 1)
    assert "franquia de dados" in first and "recarga" in second, item.content
    assert "[TERM_" not in item.content and item.engine == "bergamot:en-pt-tiny"
    # The first sentence is the engine's own wording (its term replaced).
    assert plain[0].content.rstrip(".").split()[-2:] == first.split()[-2:]


def test_glossary_terms_in_html_keep_the_markup_and_its_attributes(services: Services) -> None:
    text = (
        '<p>Your <b>refund</b> is on the <a href="https://example.com/dashboard?a=1&amp;b=2">'
        "dashboard</a> of Acme Cloud.</p>"
    )
    request = body([text], targetLanguages=["es-ES"], translationMode="fast", textFormat="html")
    [[item]] = asyncio.run(services.translate(request, (GLOSSARY_ES,), KEEP))
    assert item.content.startswith("<p>") and item.content.endswith("</p>"), item.content
    assert '<a href="https://example.com/dashboard?a=1&amp;b=2">' in item.content
    assert "<b>reembolso</b>" in item.content and "panel de control" in item.content
    assert "Acme Cloud" in item.content and "TERM_" not in item.content
