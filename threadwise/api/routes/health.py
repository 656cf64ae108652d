"""Health endpoints: version, liveness, readiness."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from threadwise import INTERFACE_VERSION, __version__
from threadwise.api.deps import ServingDep

router = APIRouter(tags=["operations"])


@router.get("/version")
async def version() -> dict[str, str]:
    return {"interface": INTERFACE_VERSION, "service": __version__}


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Alive: the process answers."""
    return {"status": "ok"}


_NOT_READY: dict[int | str, dict[str, Any]] = {
    503: {
        "description": "Not ready: `loading`, `failed` (with `error`), `draining`, "
        "`unavailable` (the model server is down: `engine`, `error`), or `saturated` (with "
        "`queues`), as `status`.",
        "content": {"application/json": {"schema": {"type": "object", "required": ["status"]}}},
    }
}


@router.get("/readyz", responses=_NOT_READY)
async def readyz(serving: ServingDep) -> JSONResponse:
    """Ready to take traffic: 503 while the models load, while the default engine's model
    server is down, while a queue is saturated (an autoscaler or load balancer should send
    work elsewhere), and while shutting down. Another profile's engine that is down is named
    under ``unavailable`` (its requests fail at once) without making the replica unready."""
    readiness = serving.readiness
    down = readiness.unavailable_engines()
    if readiness.ready:
        ready: dict[str, Any] = {"status": "ready", "engine": readiness.engine_name}
        if down:
            ready["unavailable"] = down
        return JSONResponse(ready)
    error = readiness.load_error
    if error is not None:
        return JSONResponse({"status": "failed", "error": str(error)}, status_code=503)
    if not readiness.loaded:
        return JSONResponse({"status": "loading"}, status_code=503)
    if serving.lifecycle.draining:
        return JSONResponse({"status": "draining"}, status_code=503)
    if "" in down:
        return JSONResponse(
            {"status": "unavailable", "engine": readiness.engine_name, "error": down[""]},
            status_code=503,
        )
    return JSONResponse(
        {"status": "saturated", "queues": readiness.saturated_queues()}, status_code=503
    )
