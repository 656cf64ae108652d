"""The routing table the service reads, from what ``bench.translate --quality`` measured.

Per direction: the quality engine (best chrF), the fast engine (best chrF among those that
answer in milliseconds), every engine's figures, and the direction's quality label. Per
language: the labels of its directions to and from English, which decide what is served
(``threadwise.text.measured_languages``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from threadwise.superpowers.translate.routing import NO_ENGINE
from threadwise.text.measured_languages import Label, label_of

# An engine is fast if it answers a sentence in this much time or less.
FAST_SECONDS = 0.1

# chrF (sacrebleu, NTREX-128) at or above which a direction earns each label. Anchored on
# the directions served from the start: their best engines measure 48-64 (en-es 53.4, pt-en
# 63.9, es-en 58.7): "good" from 45. en-de and en-fr, served as good enough since, measure
# 41.8 and 42.6; in the samples, directions from 35 up (en-pl 35.3, en-ru 36.0) keep the
# meaning of most sentences with grammar errors, those near 30 (en-tr 30.9, en-fi 28.1)
# lose it in about a third: "usable" from 35. Below 20 (en-el 17.3) most sentences come
# out wrong or in the wrong language: not served.
THRESHOLDS: dict[Label, float] = {"good": 45.0, "usable": 35.0, "experimental": 20.0}
# chrF counts character n-grams: in Chinese and Japanese (no spaces, thousands of
# characters) and Korean (thousands of syllable blocks) a translation scores far lower than
# one of the same quality in an alphabet, so no threshold above says what it does there.
# Until a measure comparable across scripts exists, those targets are experimental at most.
EXPERIMENTAL_AT_MOST = ("zh", "ja", "ko")


def direction_entry(found: Mapping[str, Any], sentences: int, target: str) -> dict[str, Any]:
    """One direction's entry: its engines per tier, their figures and its label."""
    measured = {e: f for e, f in found.items() if f.get("chrF") is not None}
    quality = max(measured, key=lambda e: (measured[e]["chrF"], -measured[e]["BLEU"]))
    fast_ones = [e for e in measured if measured[e]["secondsPerSentence"] <= FAST_SECONDS]
    fast = max(fast_ones, key=lambda e: measured[e]["chrF"]) if fast_ones else NO_ENGINE
    label = label_of(measured[quality]["chrF"], THRESHOLDS)
    if target in EXPERIMENTAL_AT_MOST and label is not None:
        label = "experimental"
    return {
        "quality": quality,
        "fast": fast,
        "label": label,
        "sentences": sentences,
        "candidates": {
            e: {k: f[k] for k in ("chrF", "BLEU", "secondsPerSentence")}
            for e, f in sorted(measured.items())
        },
    }


def routing_table(
    measurements: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> dict[str, Any]:
    """The table from ``measurements`` (each ``{"sentences": n, "directions": {key: {engine:
    figures}}}``; a later one's direction replaces an earlier one's); ``names``: every
    language's English name, the order of the ``languages`` section."""
    directions: dict[str, Any] = {}
    for measured in measurements:
        for key, found in measured["directions"].items():
            if any(f.get("chrF") is not None for f in found.values()):
                target = key.split("-")[1]
                directions[key] = direction_entry(found, measured["sentences"], target)
    languages: dict[str, Any] = {}
    for code in names:
        into, out = directions.get(f"en-{code}"), directions.get(f"{code}-en")
        if code == "en" or not (into or out):
            continue
        languages[code] = {
            "into": into and into["label"],
            "intoChrF": into and into["candidates"][into["quality"]]["chrF"],
            "from": out and out["label"],
            "fromChrF": out and out["candidates"][out["quality"]]["chrF"],
        }
    return {
        "measured": {
            "set": "NTREX-128 dev excerpts (../shared/eval/ntrex-dev.tsv, ntrex-dev-more.tsv);"
            " pt = pt-BR, zh = Simplified",
            "by": "bench/translate.py --quality --write-table",
            "date": datetime.date.today().isoformat(),
            "machine": "2 cores, llama.cpp 2 threads",
        },
        "labels": {
            "thresholds": THRESHOLDS,
            "experimentalAtMost": list(EXPERIMENTAL_AT_MOST),
            "metric": "chrF of the direction's quality engine",
        },
        "languages": languages,
        "directions": dict(sorted(directions.items())),
    }
