"""``GET /languages``: translation directions with both tiers' engines and figures."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from threadwise.api.deps import ServingDep, get_principal
from threadwise.api.openapi import error_responses

# Only health, readiness, version and the token endpoint are open (docs/protocol/interface.md §2).
router = APIRouter(tags=["languages"], dependencies=[Depends(get_principal)])


@router.get("/languages", responses=error_responses(401))
async def languages(serving: ServingDep) -> dict[str, Any]:
    """What can be translated (source → target), by which engine in each tier, as measured."""
    return serving.languages()
