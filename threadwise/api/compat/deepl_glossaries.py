"""DeepL's glossaries (``/v2/glossaries``) over the organization's own: a glossary created
through a DeepL client is one of the organization's, used by ``glossary_id`` in DeepL's
translate and ``glossaryId`` in the native API alike, and the reverse."""

from __future__ import annotations

import csv
from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from threadwise.api.compat.deepl import directions
from threadwise.api.compat.deepl_answers import authenticated, error
from threadwise.api.compat.fields import Fields, bad_request
from threadwise.api.compat.native import acting_organization
from threadwise.errors import ServiceError
from threadwise.organizations.glossary_rows import UnknownGlossaryError
from threadwise.protocol import ErrorCode
from threadwise.serving.context import ServingContext
from threadwise.text.terms import Glossary, Term

router = APIRouter(prefix="/v2", tags=["deepl"], include_in_schema=False)

T = TypeVar("T")


class _Caller:
    """Who calls, and the organization whose glossaries these are."""

    def __init__(self, serving: ServingContext, tenant: str, organization: str) -> None:
        self.serving = serving
        self.tenant = tenant
        self.organization = organization

    @classmethod
    async def of(cls, request: Request) -> tuple[_Caller, Fields]:
        serving: ServingContext = request.app.state.serving
        caller, fields = await authenticated(request)
        return cls(serving, caller.claims.tenant, acting_organization(caller)), fields

    async def store(self, method: Callable[..., T], *args: Any) -> T:
        """A glossary store method for this organization, off the event loop."""
        try:
            return await anyio.to_thread.run_sync(method, self.tenant, self.organization, *args)
        except UnknownGlossaryError:
            raise ServiceError(ErrorCode.NOT_FOUND, "Glossary not found.") from None
        except ValueError as exc:
            raise bad_request(str(exc)) from None


def glossary_info(glossary: Glossary) -> dict[str, Any]:
    """A glossary as DeepL describes one."""
    created = glossary.created_at
    return {
        "glossary_id": glossary.glossary_id,
        "name": glossary.name,
        "ready": True,
        "source_lang": glossary.source_language,
        "target_lang": glossary.target_language,
        "creation_time": created.isoformat().replace("+00:00", "Z") if created else None,
        "entry_count": len(glossary.entries),
    }


def parse_entries(entries: str, entries_format: str) -> list[Term]:
    """DeepL's entries: one ``source<TAB>target`` per line (tsv), or CSV rows whose first two
    columns are source and target (more columns, DeepL's languages, are allowed)."""
    if entries_format == "tsv":
        rows = [line.split("\t") for line in entries.splitlines() if line.strip()]
        if any(len(row) != 2 for row in rows):
            raise bad_request("Invalid glossary entries: each line must be 'source<TAB>target'.")
    elif entries_format == "csv":
        rows = [row for row in csv.reader(entries.splitlines()) if any(c.strip() for c in row)]
        if any(len(row) < 2 for row in rows):
            raise bad_request("Invalid glossary entries: each row must be 'source,target'.")
    else:
        raise bad_request(f"Value for 'entries_format' not supported: {entries_format!r}.")
    return [Term(row[0].strip(), row[1].strip()) for row in rows]


@router.api_route("/glossary-language-pairs", methods=["GET", "POST"])
async def language_pairs(request: Request) -> JSONResponse:
    """The language pairs a glossary may have: every direction translated here."""
    try:
        caller, _ = await _Caller.of(request)
    except ServiceError as exc:
        return error(exc)
    sources, targets = directions(caller.serving)
    pairs = [
        {"source_lang": source, "target_lang": target}
        for source in sorted(sources)
        for target in sorted(targets)
        if source != target
    ]
    return JSONResponse({"supported_languages": pairs})


@router.post("/glossaries", status_code=201)
async def create(request: Request) -> JSONResponse:
    """A new glossary of the organization, from ``entries`` in ``entries_format``."""
    try:
        caller, fields = await _Caller.of(request)
        entries = parse_entries(fields.text("entries"), fields.text("entries_format", "tsv"))
        glossary = await caller.store(
            caller.serving.glossaries.create,
            fields.text("name"),
            fields.text("source_lang").lower(),
            fields.text("target_lang").lower(),
            entries,
        )
    except ServiceError as exc:
        return error(exc)
    return JSONResponse(glossary_info(glossary), status_code=201)


@router.get("/glossaries")
async def list_all(request: Request) -> JSONResponse:
    try:
        caller, _ = await _Caller.of(request)
        found = await caller.store(caller.serving.glossaries.list)
    except ServiceError as exc:
        return error(exc)
    return JSONResponse({"glossaries": [glossary_info(g) for g in found]})


@router.get("/glossaries/{glossary_id}")
async def get(glossary_id: str, request: Request) -> JSONResponse:
    try:
        caller, _ = await _Caller.of(request)
        glossary = await caller.store(caller.serving.glossaries.get, glossary_id)
    except ServiceError as exc:
        return error(exc)
    return JSONResponse(glossary_info(glossary))


@router.get("/glossaries/{glossary_id}/entries")
async def entries(glossary_id: str, request: Request) -> Response:
    """The entries as DeepL sends them: tab-separated, one per line."""
    try:
        caller, _ = await _Caller.of(request)
        glossary = await caller.store(caller.serving.glossaries.get, glossary_id)
    except ServiceError as exc:
        return error(exc)
    lines = "".join(f"{term.source}\t{term.target}\n" for term in glossary.entries)
    return PlainTextResponse(lines, media_type="text/tab-separated-values")


@router.delete("/glossaries/{glossary_id}", status_code=204)
async def delete(glossary_id: str, request: Request) -> Response:
    try:
        caller, _ = await _Caller.of(request)
        await caller.store(caller.serving.glossaries.delete, glossary_id)
    except ServiceError as exc:
        return error(exc)
    return Response(status_code=204)
