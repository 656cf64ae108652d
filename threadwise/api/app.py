"""Build the ASGI application."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from threadwise import INTERFACE_VERSION, __version__
from threadwise.api.compat import deepl, deepl_glossaries, libretranslate
from threadwise.api.errors import install_error_handlers
from threadwise.api.openapi import openapi_document
from threadwise.api.records import RequestRecords
from threadwise.api.routes import (
    auth,
    docs,
    glossaries,
    health,
    jobs,
    languages,
    metrics,
    playground,
    superpowers,
    usage,
)
from threadwise.api.socket import endpoint
from threadwise.api.socket.registry import SocketRegistry
from threadwise.serving.context import ServingContext


class InterfaceVersionHeader:
    """Add ``X-Interface-Version`` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-interface-version", INTERFACE_VERSION.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_header)


def create_app(
    serving: ServingContext,
    *,
    start: Callable[[], None] | None = None,
    close: Callable[[], None] | None = None,
) -> FastAPI:
    """The app for ``serving``; ``start`` and ``close`` (the services behind it) are called
    as it starts and stops, when given."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if start is not None:
            start()
        await serving.jobs.start()
        try:
            yield
        finally:
            # Under `threadwise serve` the sockets are closed before this (api/server.py).
            await sockets.close_all(serving.settings.websocket_shutdown_seconds)
            # Running jobs end their part; the queued ones wait for any replica.
            await serving.jobs.stop()
            if close is not None:
                close()

    app = FastAPI(
        title="threadwise",
        version=__version__,
        summary=f"Superpowers message API, interface {INTERFACE_VERSION}",
        lifespan=lifespan,
        # Served from the package instead of a CDN (routes/docs.py).
        docs_url=None,
        redoc_url=None,
        # Starlette would answer /glossaries/ with a redirect to an absolute URL built from
        # the Host header, which any client sets: a path is answered as it is written.
        redirect_slashes=False,
    )
    sockets = SocketRegistry()
    app.state.serving = serving
    app.state.sockets = sockets
    app.openapi = lambda: openapi_document(app)  # type: ignore[method-assign]
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(docs.router)
    app.include_router(playground.router)
    app.include_router(auth.router)
    app.include_router(superpowers.router)
    app.include_router(jobs.router)
    app.include_router(languages.router)
    app.include_router(glossaries.router)
    app.include_router(usage.router)
    app.include_router(metrics.router)
    app.include_router(libretranslate.router)
    app.include_router(deepl.router)
    app.include_router(deepl_glossaries.router)
    app.add_middleware(RequestRecords, serving=serving)
    app.include_router(endpoint.router)
    app.add_middleware(InterfaceVersionHeader)
    return app
