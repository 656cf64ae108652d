"""``/playground``: a page for trying both superpowers in a browser, served with its few files
from the package (``threadwise/api/playground/``), with nothing loaded from another host."""

from __future__ import annotations

import hashlib
from importlib.resources import files
from typing import Final

from fastapi import APIRouter, Request, Response

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

router = APIRouter(include_in_schema=False)

_PAGE = files("threadwise.api").joinpath("playground")
_TYPES: Final = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
# The page's files and their media types, listed once: a requested name is looked up here,
# never handed to the file system (one too long for it raised OSError: a 500, not a 404).
_FILES: Final = {
    resource.name: media_type
    for resource in _PAGE.iterdir()
    if resource.is_file()
    and not resource.name.startswith(".")
    and (media_type := _TYPES.get(resource.name[resource.name.rfind(".") :]))
}
# The page runs only its own files and talks only to this server (the WebSocket included:
# 'self' covers ws: and wss: of the same host), which also keeps a pasted token from being
# sent anywhere else by anything injected into the page.
_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # A new version of the page is picked up at once; unchanged files are answered 304.
    "Cache-Control": "no-cache",
}


@router.get("/playground")
async def page(request: Request) -> Response:
    return _file("index.html", request)


@router.get("/playground/{name}")
async def asset(name: str, request: Request) -> Response:
    """One of the page's files; anything else is ``404 NOT_FOUND``."""
    return _file(name, request)


def _file(name: str, request: Request) -> Response:
    media_type = _FILES.get(name)
    if media_type is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f"No such file under /playground: {name[:80]!r}.")
    # The files are a few KiB each: read and hashed per request, a changed file is never stale.
    content = _PAGE.joinpath(name).read_bytes()
    etag = f'"{hashlib.sha256(content).hexdigest()[:20]}"'
    headers = {**_HEADERS, "ETag": etag}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(content, media_type=f"{media_type}; charset=utf-8", headers=headers)
