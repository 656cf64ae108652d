"""The routing table written from measurements: engines per tier, labels, languages."""

from __future__ import annotations

from typing import Any

from bench.routing_table import THRESHOLDS, routing_table
from threadwise.text.measured_languages import label_of


def figures(chrf: float, seconds: float = 2.0) -> dict[str, float]:
    return {"chrF": chrf, "BLEU": chrf / 3, "secondsPerSentence": seconds}


NAMES = {"en": "English", "es": "Spanish", "zh": "Chinese", "el": "Greek", "xx": "Unmeasured"}
MEASURED: list[dict[str, Any]] = [
    {
        "sentences": 20,
        "directions": {
            "en-es": {"llm": figures(40.0)},
            "es-en": {"llm": figures(58.0), "apertium": figures(49.0, 0.004)},
        },
    },
    {
        "sentences": 50,
        "directions": {
            "en-es": {"llm": figures(53.0), "apertium": figures(49.0, 0.004)},
            "en-zh": {"llm": figures(40.0)},
            "zh-en": {"llm": figures(44.6)},
            "en-el": {"llm": figures(17.3)},
            "el-en": {"llm": figures(35.2)},
        },
    },
]


def test_the_best_engine_per_tier_and_its_label() -> None:
    table = routing_table(MEASURED, NAMES)
    es_en = table["directions"]["es-en"]
    assert (es_en["quality"], es_en["fast"], es_en["label"]) == ("llm", "apertium", "good")
    assert es_en["sentences"] == 20


def test_a_later_measurement_replaces_an_earlier_one() -> None:
    en_es = routing_table(MEASURED, NAMES)["directions"]["en-es"]
    assert en_es["candidates"]["llm"]["chrF"] == 53.0 and en_es["sentences"] == 50


def test_below_every_threshold_a_direction_has_no_label() -> None:
    assert routing_table(MEASURED, NAMES)["directions"]["en-el"]["label"] is None


def test_chinese_japanese_and_korean_targets_are_experimental_at_most() -> None:
    directions = routing_table(MEASURED, NAMES)["directions"]
    assert label_of(40.0, THRESHOLDS) == "usable"
    assert directions["en-zh"]["label"] == "experimental"
    assert directions["zh-en"]["label"] == "usable"  # English is an alphabet


def test_each_measured_language_has_the_labels_of_its_directions_to_and_from_english() -> None:
    languages = routing_table(MEASURED, NAMES)["languages"]
    assert list(languages) == ["es", "zh", "el"]
    assert languages["el"] == {"into": None, "intoChrF": 17.3, "from": "usable", "fromChrF": 35.2}
    assert languages["es"]["into"] == "good" and languages["es"]["intoChrF"] == 53.0


def test_the_thresholds_are_kept_in_the_table() -> None:
    labels = routing_table(MEASURED, NAMES)["labels"]
    assert labels["thresholds"] == {"good": 45.0, "usable": 35.0, "experimental": 20.0}
    assert labels["experimentalAtMost"] == ["zh", "ja", "ko"]
