"""``/glossaries``: an organization's glossaries and do-not-translate terms, managed as DeepL's
glossaries are. Every route needs a valid token for the organization it names."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from fastapi import APIRouter, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from threadwise.api.deps import Caller, ServingDep, json_body
from threadwise.api.openapi import error_responses, request_body
from threadwise.auth.gate import Principal
from threadwise.errors import ServiceError
from threadwise.organizations.glossary_rows import UnknownGlossaryError
from threadwise.organizations.glossary_rules import MAX_DO_NOT_TRANSLATE, MAX_ENTRIES, MAX_TERM
from threadwise.organizations.glossary_views import (
    DoNotTranslateTerm,
    DoNotTranslateTerms,
    Glossaries,
    GlossaryDetail,
    GlossaryEntry,
    do_not_translate_terms,
    glossary_detail,
    glossary_list,
)
from threadwise.protocol import ErrorCode, ErrorEnvelope
from threadwise.serving.context import ServingContext
from threadwise.text.languages import TRANSLATION_LANGUAGES
from threadwise.text.terms import Term

router = APIRouter(prefix="/glossaries", tags=["glossaries"])
# Shown in /docs as the request body's example (a source checkout has it).
_EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "glossary-create.json"

T = TypeVar("T")

Responses = dict[int | str, dict[str, Any]]

_ERRORS: Responses = {
    **error_responses(401, 403),
    422: {
        "model": ErrorEnvelope,
        "description": "`PAYLOAD_SCHEMA_MISMATCH`, `REQUIRED_FIELDS_MISSING`: the body or a "
        "parameter, with what to fix",
    },
}
# A body that is not JSON, too large, or sent as another media type.
_BODY_ERRORS: Responses = {**_ERRORS, **error_responses(400, 413, 415)}
# error_responses leaves NOT_FOUND out: elsewhere it only means a path that does not exist.
_NO_SUCH_GLOSSARY: Responses = {
    404: {
        "model": ErrorEnvelope,
        "description": "`NOT_FOUND`: the organization has no such glossary",
    },
}
_ERRORS_OF_ONE: Responses = {**_ERRORS, **_NO_SUCH_GLOSSARY}
_LANGUAGE = f"One of {', '.join(TRANSLATION_LANGUAGES)}; a region ('es-ES') is accepted."


class _Body(BaseModel):
    # A misspelt key ("caseSensitve") is refused, not silently ignored.
    model_config = ConfigDict(extra="forbid")


class GlossaryRequest(_Body):
    """A glossary as created or replaced (``examples/glossary-create.json``)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [json.loads(_EXAMPLE.read_text())]}
        if _EXAMPLE.is_file()
        else None
    )

    organizationId: str
    name: str = Field(description="1 to 200 characters.")
    sourceLanguage: str = Field(description=_LANGUAGE)
    targetLanguage: str = Field(description=_LANGUAGE)
    entries: list[GlossaryEntry] = Field(
        description=f"1 to {MAX_ENTRIES}, no two with the same source."
    )
    default: bool = Field(
        default=False,
        description="Applied to the organization's translations of this language pair that "
        "name no glossary; another default of the pair stops being one.",
    )


class DoNotTranslateRequest(_Body):
    organizationId: str
    terms: list[DoNotTranslateTerm] = Field(
        description=f"Replace the organization's list: at most {MAX_DO_NOT_TRANSLATE} terms."
    )


OrganizationId = Annotated[str, Query(alias="organizationId")]
GlossaryId = Annotated[str, Path(alias="glossaryId")]

# The largest bodies valid requests make, every character of a term escaped as \uXXXX
# (json.dumps's default) and room for keys and indentation: a larger body cannot be valid,
# and is refused as soon as it is known to be larger (413), before it is read whole.
_GLOSSARY_BYTES = 64 * 1024 + MAX_ENTRIES * (2 * 6 * MAX_TERM + 128)
_DO_NOT_TRANSLATE_BYTES = 64 * 1024 + MAX_DO_NOT_TRANSLATE * (6 * MAX_TERM + 128)
GlossaryBody = Annotated[
    GlossaryRequest,
    json_body(GlossaryRequest, _GLOSSARY_BYTES, f"A glossary has at most {MAX_ENTRIES} entries."),
]
DoNotTranslateBody = Annotated[
    DoNotTranslateRequest,
    json_body(
        DoNotTranslateRequest,
        _DO_NOT_TRANSLATE_BYTES,
        f"An organization has at most {MAX_DO_NOT_TRANSLATE} do-not-translate terms.",
    ),
]


@router.get("/do-not-translate", responses=_ERRORS)
async def list_do_not_translate(
    organization: OrganizationId, caller: Caller, serving: ServingDep
) -> DoNotTranslateTerms:
    """The organization's do-not-translate terms."""
    tenant = _acting_for(caller, serving, organization)
    terms = await _stored(serving.glossaries.do_not_translate, tenant, organization)
    return do_not_translate_terms(terms)


@router.put(
    "/do-not-translate",
    responses=_BODY_ERRORS,
    openapi_extra=request_body(DoNotTranslateRequest),
)
async def set_do_not_translate(
    body: DoNotTranslateBody, caller: Caller, serving: ServingDep
) -> DoNotTranslateTerms:
    """Replace the organization's do-not-translate terms (an empty list removes them all)."""
    organization = body.organizationId
    tenant = _acting_for(caller, serving, organization)
    wanted = [Term(term.term, term.term, term.caseSensitive) for term in body.terms]
    await _stored(serving.glossaries.set_do_not_translate, tenant, organization, wanted)
    terms = await _stored(serving.glossaries.do_not_translate, tenant, organization)
    return do_not_translate_terms(terms)


@router.post(
    "", status_code=201, responses=_BODY_ERRORS, openapi_extra=request_body(GlossaryRequest)
)
async def create_glossary(
    body: GlossaryBody, caller: Caller, serving: ServingDep
) -> GlossaryDetail:
    """Create a glossary for one language pair."""
    tenant = _acting_for(caller, serving, body.organizationId)
    glossary = await _stored(serving.glossaries.create, tenant, body.organizationId, *_fields(body))
    return glossary_detail(glossary)


@router.get("", responses=_ERRORS)
async def list_glossaries(
    organization: OrganizationId, caller: Caller, serving: ServingDep
) -> Glossaries:
    """The organization's glossaries, without their entries."""
    tenant = _acting_for(caller, serving, organization)
    found = await _stored(serving.glossaries.list, tenant, organization)
    return glossary_list(found)


@router.get("/{glossaryId}", responses=_ERRORS_OF_ONE)
async def get_glossary(
    glossary_id: GlossaryId, organization: OrganizationId, caller: Caller, serving: ServingDep
) -> GlossaryDetail:
    """A glossary, with its entries."""
    tenant = _acting_for(caller, serving, organization)
    glossary = await _stored(serving.glossaries.get, tenant, organization, glossary_id)
    return glossary_detail(glossary)


@router.put(
    "/{glossaryId}",
    responses={**_BODY_ERRORS, **_NO_SUCH_GLOSSARY},
    openapi_extra=request_body(GlossaryRequest),
)
async def replace_glossary(
    glossary_id: GlossaryId, body: GlossaryBody, caller: Caller, serving: ServingDep
) -> GlossaryDetail:
    """Replace a glossary's name, languages, entries and default; its id stays."""
    tenant = _acting_for(caller, serving, body.organizationId)
    glossary = await _stored(
        serving.glossaries.replace, tenant, body.organizationId, glossary_id, *_fields(body)
    )
    return glossary_detail(glossary)


@router.delete("/{glossaryId}", status_code=204, response_class=Response, responses=_ERRORS_OF_ONE)
async def delete_glossary(
    glossary_id: GlossaryId, organization: OrganizationId, caller: Caller, serving: ServingDep
) -> Response:
    """Delete a glossary and its entries."""
    tenant = _acting_for(caller, serving, organization)
    await _stored(serving.glossaries.delete, tenant, organization, glossary_id)
    return Response(status_code=204)


def _acting_for(caller: Principal, serving: ServingContext, organization: str) -> str:
    """The caller's tenant, once it may act for ``organization`` (403 otherwise)."""
    serving.gate.authorize(caller, organization, "organizationId")
    return caller.claims.tenant


async def _stored(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` of the store, off the event loop; its refusals as the API's errors."""
    try:
        return await anyio.to_thread.run_sync(function, *args)
    except UnknownGlossaryError as exc:
        raise ServiceError(
            ErrorCode.NOT_FOUND,
            f"{exc} GET /glossaries?organizationId=… lists the organization's glossaries.",
        ) from None
    except ValueError as exc:
        raise ServiceError(ErrorCode.PAYLOAD_SCHEMA_MISMATCH, str(exc)) from None


def _fields(body: GlossaryRequest) -> tuple[str, str, str, list[Term], bool]:
    """The store's arguments after the organization (and the id, for a replace)."""
    entries = [Term(e.source, e.target, e.caseSensitive) for e in body.entries]
    return body.name, body.sourceLanguage, body.targetLanguage, entries, body.default
