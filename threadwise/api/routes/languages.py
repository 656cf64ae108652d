"""``GET /languages``: translation directions with both tiers' engines and figures."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from threadwise.api.deps import ServingDep, get_principal
from threadwise.api.openapi import error_responses

# Only health, readiness, version and the token endpoint are open (docs/protocol/interface.md §2).
router = APIRouter(tags=["languages"], dependencies=[Depends(get_principal)])


@router.get("/languages", responses=error_responses(401))
async def languages(
    serving: ServingDep,
    source: Annotated[
        str | None, Query(max_length=35, description="Only the directions from this language.")
    ] = None,
    target: Annotated[
        str | None, Query(max_length=35, description="Only the directions into this language.")
    ] = None,
) -> dict[str, Any]:
    """What can be translated (source → target), by which engine in each tier, how well
    (each direction's label and figures, each language's from and into English), as
    measured; ``source`` and ``target`` (BCP 47: ``pt-BR`` is ``pt``) keep the directions
    from or into one language."""
    document = serving.languages()
    wanted = {"source": _primary(source), "target": _primary(target)}
    kept = [
        direction
        for direction in document["translation"]
        if all(code is None or direction[end] == code for end, code in wanted.items())
    ]
    return {**document, "translation": kept}


def _primary(tag: str | None) -> str | None:
    return None if tag is None else tag.strip().replace("_", "-").split("-")[0].lower()
