"""What ``GET /languages`` reports: each direction's engine per tier with its measured figures."""

from __future__ import annotations

from threadwise.serving.languages import languages_document
from threadwise.superpowers.translate.routing import NO_ENGINE, TranslationRouter
from threadwise.text.languages import SUMMARY_LANGUAGES

AVAILABLE = {"apertium": {("en", "es")}, "llm": {("en", "es"), ("en", "de")}}
TABLE = {
    "measured": {"on": "2026-11-01"},
    "directions": {
        "en-es": {
            "quality": "llm",
            "fast": "apertium",
            "candidates": {
                "apertium": {"chrF": 49.0, "BLEU": 20.0, "secondsPerSentence": 0.003},
                "llm": {"chrF": 53.4, "BLEU": 24.0, "secondsPerSentence": 1.9},
            },
        },
    },
}


def test_each_direction_lists_both_tiers_with_their_figures() -> None:
    document = languages_document(TranslationRouter(AVAILABLE, TABLE))
    directions = {(d["source"], d["target"]): d for d in document["translation"]}
    assert set(directions) == {("en", "es"), ("en", "de")}
    assert directions[("en", "es")]["quality"] == {
        "engine": "llm",
        "chrF": 53.4,
        "BLEU": 24.0,
        "secondsPerSentence": 1.9,
    }
    assert directions[("en", "es")]["fast"]["engine"] == "apertium"
    assert directions[("en", "es")]["fast"]["chrF"] == 49.0


def test_an_unmeasured_or_missing_engine_has_no_figures() -> None:
    document = languages_document(TranslationRouter(AVAILABLE, TABLE))
    [en_de] = [d for d in document["translation"] if d["target"] == "de"]
    assert en_de["quality"] == {
        "engine": "llm",
        "chrF": None,
        "BLEU": None,
        "secondsPerSentence": None,
    }
    assert en_de["fast"]["engine"] == NO_ENGINE and en_de["fast"]["chrF"] is None


def test_the_summary_languages_and_when_they_were_measured() -> None:
    document = languages_document(TranslationRouter(AVAILABLE, TABLE))
    assert document["summary"] == list(SUMMARY_LANGUAGES)
    assert document["measuredOn"] == {"on": "2026-11-01"}
