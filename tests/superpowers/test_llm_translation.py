"""LLM translation: numbered lines checked back (scripted engine), then the real model."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from tests.superpowers.test_summarize import ScriptedEngine
from threadwise.services import Services
from threadwise.superpowers.llm_translation import LlmTranslator
from threadwise.text.languages import LanguageIdentifier
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.tagged import Tag, to_tagged

CORPUS: list[str] = json.loads((DATA / "markdown_corpus.json").read_text(encoding="utf-8"))


def test_numbered_lines_are_matched_and_bad_ones_asked_again() -> None:
    engine = ScriptedEngine(
        [
            " Hola\n2. Tu número\nnoise\n3. Mira <g1>aquí</g1>",  # line 2 lost its tags
            " Tu <g1>número</g1>",
        ]
    )
    translator = LlmTranslator(engine, ["en", "es"])
    segments = [
        ("Hello",),
        ("Your ", Tag(1, "open"), "number", Tag(1, "close")),
        ("Look ", Tag(1, "open"), "here", Tag(1, "close")),
    ]
    results = translator.translate(segments, "en", "es")
    assert [to_tagged(r) if r else None for r in results] == [
        "Hola",
        "Tu <g1>número</g1>",
        "Mira <g1>aquí</g1>",
    ]
    asked = [chat[-1]["content"] for chat in engine.chats]
    assert "from English into Spanish" in asked[0]
    assert "1. Hello\n2. Your <g1>number</g1>\n3. Look <g1>here</g1>" in asked[0]
    assert "1. Your <g1>number</g1>" in asked[1]
    assert engine.continued == ["1.", "1."]


def test_a_line_left_in_the_source_language_is_asked_again() -> None:
    copied = "El cliente quiere devolver la chaqueta porque es demasiado pequeña."
    engine = ScriptedEngine([f" {copied}", " Le client veut rendre la veste, trop petite."])
    translator = LlmTranslator(engine, ["es", "fr"], LanguageIdentifier())
    [result] = translator.translate([(copied,)], "es", "fr")
    assert result == ("Le client veut rendre la veste, trop petite.",)
    assert len(engine.chats) == 2


def test_post_edit_shows_the_draft() -> None:
    engine = ScriptedEngine([" Claro"])
    translator = LlmTranslator(engine, ["en", "es"])
    [result] = translator.post_edit([("Sure",)], [("Seguro",)], "en", "es", "ES")
    assert result == ("Claro",)
    asked = engine.chats[0][-1]["content"]
    assert "1. Sure" in asked and "1. Seguro" in asked


@pytest.mark.model
def test_real_model_keeps_the_markdown_of_the_corpus(services: Services) -> None:
    segmenter = MarkdownSegmenter()
    messages = [segmenter.segment(m) for m in CORPUS[:6]]
    segments = [s for m in messages for s in m.segments]
    translator = services.translator.llm
    results = translator.translate([s.parts for s in segments], "en", "es", "ES")
    kept = sum(r is not None for r in results)
    assert kept >= 0.8 * len(segments), results
    rendered = iter(
        s.render(r) if r else s.source() for s, r in zip(segments, results, strict=True)
    )
    for message in messages:
        text = message.render([next(rendered) for _ in message.segments])
        assert structure_problems(message.text, text) == [], text
