"""``/docs`` (Swagger UI) and ``/redoc`` served with their assets from an installed package
(``fastapi-offline``), so that they work where nothing but this server can be reached."""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib.resources import as_file, files
from typing import Final

from fastapi import APIRouter, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import FileResponse, HTMLResponse, Response

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

router = APIRouter(include_in_schema=False)

ASSETS = "/docs/assets"
_TYPES: Final = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
_STATIC = files("fastapi_offline").joinpath("static")
# ReDoc's side menu shows Redocly's logo from their CDN, whatever its options say: served with
# this server's icon in its place (a browser test checks that nothing else is fetched).
_REDOC_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def _guarded(page: HTMLResponse) -> HTMLResponse:
    """``page`` under a policy that lets it run only this server's scripts and its own inline
    one (by its hash), talk only to this server, and be framed by no other page (which could
    dress the token dialog as its own). Styles may be inline: ReDoc writes its own <style>
    elements as it renders, and a style cannot run code."""
    scripts = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
        for script in _INLINE_SCRIPT.findall(page.body)
    )
    page.headers.update(
        {
            "Content-Security-Policy": (
                f"default-src 'none'; script-src 'self'{scripts}; "
                "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
                "connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; "
                "frame-ancestors 'none'"
            ),
            # frame-ancestors' predecessor, for browsers that do not read it.
            "X-Frame-Options": "DENY",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        }
    )
    return page


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} — API",
        swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS}/favicon.png",
        oauth2_redirect_url="/docs/oauth2-redirect",
        # Swagger UI would otherwise send the document to validator.swagger.io for a badge.
        swagger_ui_parameters={"validatorUrl": None},
    )
    return _guarded(page)


@router.get("/docs/oauth2-redirect")
async def swagger_ui_redirect() -> HTMLResponse:
    return _guarded(get_swagger_ui_oauth2_redirect_html())


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    page = get_redoc_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} — API",
        redoc_js_url=f"{ASSETS}/redoc.standalone.js",
        redoc_favicon_url=f"{ASSETS}/favicon.png",
        with_google_fonts=False,
    )
    return _guarded(page)


@router.get(ASSETS + "/{name}")
async def asset(name: str) -> Response:
    """One of the pages' four files; anything else is ``404 NOT_FOUND``."""
    media_type = _TYPES.get(name)
    if media_type is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f"No such file under {ASSETS}: {name[:80]!r}.")
    headers = {"Cache-Control": "max-age=86400", "X-Content-Type-Options": "nosniff"}
    if name == "redoc.standalone.js":
        return Response(_redoc_script(), media_type=media_type, headers=headers)
    with as_file(_STATIC.joinpath(name)) as path:
        return FileResponse(path, media_type=media_type, headers=headers)


@cache
def _redoc_script() -> bytes:
    script = _STATIC.joinpath("redoc.standalone.js").read_bytes()
    return script.replace(_REDOC_LOGO, f"{ASSETS}/favicon.png".encode())
