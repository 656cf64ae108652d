"""What ``GET /languages`` reports: each direction's engine per tier with its measured figures."""

from __future__ import annotations

from threadwise.serving.languages import UNMEASURED, languages_document, served_to_all
from threadwise.superpowers.translate.routing import NO_ENGINE, TranslationRouter
from threadwise.text.languages import SUMMARY_LANGUAGES, TRANSLATION_LANGUAGES
from threadwise.text.measured_languages import MEASURED, THRESHOLDS

AVAILABLE = {"apertium": {("en", "es")}, "llm": {("en", "es"), ("en", "de")}}
TABLE = {
    "labels": {"thresholds": {"good": 45.0, "usable": 35.0, "experimental": 20.0}},
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
        "label": "good",
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
        "label": UNMEASURED,
    }
    assert en_de["fast"]["engine"] == NO_ENGINE and en_de["fast"]["chrF"] is None
    assert en_de["fast"]["label"] is None
    assert served_to_all(en_de)  # not measured: not judged


def test_the_summary_languages_and_when_they_were_measured() -> None:
    document = languages_document(TranslationRouter(AVAILABLE, TABLE))
    assert document["summary"] == list(SUMMARY_LANGUAGES)
    assert document["measuredOn"] == {"on": "2026-11-01"}


def test_each_language_has_the_labels_and_figures_of_its_directions_to_and_from_english() -> None:
    document = languages_document(TranslationRouter(AVAILABLE, TABLE))
    languages = {language["code"]: language for language in document["languages"]}
    assert list(languages) == list(TRANSLATION_LANGUAGES)
    assert languages["en"] == {"code": "en", "name": "English"}
    for code, labels in MEASURED.items():
        assert languages[code]["into"] == {"label": labels.into, "chrF": labels.into_chrf}
        assert languages[code]["from"] == {"label": labels.out, "chrF": labels.out_chrf}
    assert document["labels"]["thresholds"] == THRESHOLDS


def test_an_experimental_direction_is_not_served_to_all() -> None:
    table = {"directions": {"en-de": {"quality": "llm", "fast": "none", "label": "experimental"}}}
    document = languages_document(TranslationRouter(AVAILABLE, table))
    [en_de] = [d for d in document["translation"] if d["target"] == "de"]
    assert en_de["quality"]["label"] == "experimental" and not served_to_all(en_de)
