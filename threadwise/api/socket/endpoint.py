"""The WebSocket route, at ``/`` and ``/ws``: the upgrade's token checked (401 before the
socket opens), then the socket served by a ``SocketSession``."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from threadwise.api.errors import error_response
from threadwise.api.socket.frames import UNKNOWN_SUPERPOWER, close_reason
from threadwise.api.socket.registry import SocketRegistry
from threadwise.api.socket.session import SocketSession
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.serving.context import ServingContext

SUBPROTOCOL = "optave-v1"

router = APIRouter()


def upgrade_credentials(
    offered: list[str], query_token: str | None
) -> tuple[str | None, str | None]:
    """The token of an upgrade request, and the subprotocol to answer with.

    ``Sec-WebSocket-Protocol: optave-v1,<token>`` (the official client's default) is answered
    with exactly ``optave-v1``, never the token; ``?Authorization=<token>`` (its ``query``
    transport, which offers no subprotocol) with none, as the client aborts on any other answer.
    """
    subprotocol = SUBPROTOCOL if SUBPROTOCOL in offered else None
    if subprotocol is not None:
        for entry in offered:
            if entry != SUBPROTOCOL and entry.strip():
                return entry.strip(), subprotocol
    if query_token is not None and query_token.strip():
        token = query_token.strip()
        scheme, _, rest = token.partition(" ")
        return (rest.strip() if scheme.lower() == "bearer" else token) or None, subprotocol
    return None, subprotocol


@router.websocket("/")
@router.websocket("/ws")
async def superpower_socket(websocket: WebSocket) -> None:
    """Summarize and translate over one socket; see ``docs/asyncapi.yaml``."""
    serving: ServingContext = websocket.app.state.serving
    sockets: SocketRegistry = websocket.app.state.sockets
    token, subprotocol = upgrade_credentials(
        websocket.scope.get("subprotocols", []), websocket.query_params.get("Authorization")
    )
    host = websocket.headers.get("host")
    try:
        if sockets.closing:
            raise ServiceError(
                ErrorCode.OVERLOADED,
                "The server is shutting down; connect again in a few seconds.",
                retry_after=5,
            )
        if token is None:
            raise ServiceError(
                ErrorCode.MISSING_TOKEN,
                f"The WebSocket upgrade needs an access token: offer the subprotocols "
                f"'{SUBPROTOCOL},<token>' (Sec-WebSocket-Protocol), or add ?Authorization=<token> "
                "to the URL. Get a token from POST /auth/oauth2/token.",
            )
        await serving.gate.authenticate(token, host)
    except ServiceError as refusal:
        await _refuse(websocket, refusal)
        return
    await websocket.accept(subprotocol=subprotocol)
    session = SocketSession(websocket, serving, token, host)
    with sockets.registered(session):
        await session.serve()


async def _refuse(websocket: WebSocket, refusal: ServiceError) -> None:
    """Answer the upgrade with the error's HTTP status and JSON envelope (401 for a missing or
    bad token), before the socket opens; a server without the ASGI denial-response extension
    can only close it (uvicorn then answers 403)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(error_response(UNKNOWN_SUPERPOWER, refusal))
    else:
        await websocket.close(1008, close_reason(f"{refusal.code.value}: {refusal.message}"))
