"""What ``GET /languages`` reports: each translation language with the labels of its
directions to and from English; every direction with each tier's engine, its measured
figures and label; and the languages a summary can be written in."""

from __future__ import annotations

from typing import Any

from threadwise.superpowers.translate.routing import TIERS, Figures, TranslationRouter
from threadwise.text.languages import LANGUAGE_NAMES, SUMMARY_LANGUAGES, TRANSLATION_LANGUAGES
from threadwise.text.measured_languages import MEASURED, SERVED_TO_ALL, THRESHOLDS

# A tier's label in the document where its engine was not measured (it is served).
UNMEASURED = "unmeasured"


def served_to_all(direction: dict[str, Any]) -> bool:
    """Whether a direction of the document is served in the quality tier to every
    organization (labelled good or usable, or not measured), not only to those whose policy
    allows experimental directions."""
    return direction["quality"]["label"] in {*SERVED_TO_ALL, UNMEASURED}


def languages_document(router: TranslationRouter) -> dict[str, Any]:
    directions = []
    for route in router.routes():
        tiers: dict[str, dict[str, Any]] = {}
        for tier in TIERS:
            engine = route.engine(tier)
            figures = route.figures.get(engine, Figures())
            label = route.labels.get(tier) if tier in route.labels else UNMEASURED
            tiers[tier] = {"engine": engine, **figures.to_json(), "label": label}
        estimated = {"estimated": True} if route.estimated else {}
        directions.append({"source": route.source, "target": route.target, **tiers, **estimated})
    languages = [{"code": "en", "name": "English"}] + [
        {
            "code": code,
            "name": LANGUAGE_NAMES[code],
            "into": {"label": MEASURED[code].into, "chrF": MEASURED[code].into_chrf},
            "from": {"label": MEASURED[code].out, "chrF": MEASURED[code].out_chrf},
        }
        for code in TRANSLATION_LANGUAGES
        if code != "en"
    ]
    return {
        "languages": languages,
        "translation": directions,
        "summary": list(SUMMARY_LANGUAGES),
        "measuredOn": router.measured_on,
        "labels": {"thresholds": THRESHOLDS, "metric": "chrF on NTREX-128"},
    }
