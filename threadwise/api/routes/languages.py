"""``GET /languages``: translation directions with both tiers' engines and figures."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from threadwise.api.deps import ServingDep, get_principal
from threadwise.api.openapi import error_responses
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, ErrorEnvelope

# A language tag as requests give it (``pt-BR``, ``pt_BR``, ``zh-Hans-CN``): an empty or
# malformed value is refused (422), never read as no filter.
LANGUAGE_TAG = r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,4}$"

# Only health, readiness, version and the token endpoint are open (docs/protocol/interface.md §2).
router = APIRouter(tags=["languages"], dependencies=[Depends(get_principal)])


_PARAMETERS = ("source", "target")
_ERRORS = {
    **error_responses(401),
    422: {
        "model": ErrorEnvelope,
        "description": "`PAYLOAD_SCHEMA_MISMATCH`: a malformed, repeated or unknown parameter",
    },
}


def _known_parameters(request: Request) -> None:
    """Refuse a parameter the route does not take, or one given twice: a misspelt filter
    (``?sourc=en``) would otherwise answer every direction as if it had been applied."""
    names = [name for name, _ in request.query_params.multi_items()]
    for name in names:
        if name not in _PARAMETERS:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                f"Unknown query parameter {name!r}: /languages takes only source and target.",
            )
        if names.count(name) > 1:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH, f"Give the query parameter {name!r} once."
            )


@router.get("/languages", responses=_ERRORS, dependencies=[Depends(_known_parameters)])
async def languages(
    serving: ServingDep,
    source: Annotated[
        str | None, Query(pattern=LANGUAGE_TAG, description="Only the directions from it.")
    ] = None,
    target: Annotated[
        str | None, Query(pattern=LANGUAGE_TAG, description="Only the directions into it.")
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
    return None if tag is None else tag.replace("_", "-").split("-")[0].lower()
