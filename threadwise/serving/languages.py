"""What ``GET /languages`` reports: translation directions with each tier's engine and its
measured figures, and the languages a summary can be written in."""

from __future__ import annotations

from typing import Any

from threadwise.superpowers.translate.routing import TIERS, Figures, TranslationRouter
from threadwise.text.languages import SUMMARY_LANGUAGES


def languages_document(router: TranslationRouter) -> dict[str, Any]:
    directions = []
    for route in router.routes():
        tiers: dict[str, dict[str, Any]] = {}
        for tier in TIERS:
            engine = route.engine(tier)
            figures = route.figures.get(engine, Figures())
            tiers[tier] = {"engine": engine, **figures.to_json()}
        directions.append({"source": route.source, "target": route.target, **tiers})
    return {
        "translation": directions,
        "summary": list(SUMMARY_LANGUAGES),
        "measuredOn": router.measured_on,
    }
