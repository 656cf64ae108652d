"""``GET /languages``: translation directions with both tiers' engines and figures."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from threadwise.api.deps import ServicesDep, get_principal
from threadwise.api.openapi import error_responses
from threadwise.superpowers.routing import TIERS, Figures
from threadwise.text.languages import SUMMARY_LANGUAGES

# Only health, readiness, version and the token endpoint are open (decisions.md §2).
router = APIRouter(tags=["languages"], dependencies=[Depends(get_principal)])


@router.get("/languages", responses=error_responses(401))
async def languages(services: ServicesDep) -> dict[str, Any]:
    """What can be translated (source → target), by which engine in each tier, as measured."""
    translator = services.translator
    directions = []
    for route in translator.router.routes():
        tiers: dict[str, dict[str, Any]] = {}
        for tier in TIERS:
            engine = route.engine(tier)
            figures = route.figures.get(engine, Figures())
            tiers[tier] = {"engine": engine, **figures.to_json()}
        directions.append({"source": route.source, "target": route.target, **tiers})
    return {
        "translation": directions,
        "summary": list(SUMMARY_LANGUAGES),
        "measuredOn": translator.router.measured_on,
    }
