"""Apertium through its real Debian pipelines."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.conftest import DATA
from threadwise.engines.apertium import ApertiumEngine, from_stream, to_stream
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.tagged import Tag, to_tagged

CORPUS: list[str] = json.loads((DATA / "markdown_corpus.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def apertium() -> Iterator[ApertiumEngine]:
    engine = ApertiumEngine(["en", "es", "fr", "de", "pt"])
    engine.load()
    yield engine
    engine.close()


def test_stream_format_round_trip() -> None:
    parts = ("a [b] ^c$ /d @e ", Tag(1, "open"), "f", Tag(1, "close"))
    assert from_stream(to_stream(parts)).strip() == to_tagged(parts)
    assert from_stream("^*unknown #word @other") == "^unknown word other"


def test_directions_direct_and_via_spanish(apertium: ApertiumEngine) -> None:
    directions = apertium.directions()
    assert {("en", "es"), ("es", "en"), ("fr", "es"), ("es", "pt")} <= directions
    assert ("en", "fr") in directions and ("pt", "en") in directions  # via Spanish
    assert not any("de" in d for d in directions)  # no German pair exists
    assert apertium.name_for("en", "fr") == "apertium:eng-spa+es-fr"
    assert apertium.name_for("en", "pt", "BR") == "apertium:eng-spa+es-pt_BR"


def test_translates_with_tags_kept_in_milliseconds(apertium: ApertiumEngine) -> None:
    segment = ("Please send me your ", Tag(1, "open"), "order number", Tag(1, "close"), ".")
    started = time.perf_counter()
    [result] = apertium.translate([segment], "en", "es")
    assert time.perf_counter() - started < 0.5
    assert result is not None
    assert to_tagged(result) == "Complacer enviarme vuestro <g1>número de orden</g1>."


def test_restarts_a_dead_pipeline(apertium: ApertiumEngine) -> None:
    apertium.translate([("The house is red.",)], "en", "es")
    pipeline = apertium._pipeline(apertium._mode_chain("en", "es", None)[0])
    pipeline._processes[3].kill()
    pipeline._processes[3].wait()
    [result] = apertium.translate([("The house is red.",)], "en", "es")
    assert result == ("La casa es roja.",)


def test_markdown_corpus_keeps_its_structure(apertium: ApertiumEngine) -> None:
    segmenter = MarkdownSegmenter()
    for target in ("es", "fr", "pt"):
        for message in CORPUS:
            segmented = segmenter.segment(message)
            out = apertium.translate([s.parts for s in segmented.segments], "en", target)
            text = segmented.render(
                [
                    s.render(o) if o else s.source()
                    for s, o in zip(segmented.segments, out, strict=True)
                ]
            )
            assert all(o is not None for o in out), (target, message, out)
            assert structure_problems(message, text) == [], (target, message, text)
            assert text != message
