"""``GET /metrics``: Prometheus metrics (its own token when THREADWISE_METRICS_TOKEN is set)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from threadwise.api.deps import MetricsAccess, ServicesDep
from threadwise.metrics import CONTENT_TYPE

router = APIRouter(tags=["operations"])


@router.get("/metrics", dependencies=[MetricsAccess])
async def metrics(services: ServicesDep) -> Response:
    services.metrics.ready.set(1 if services.ready else 0)
    return Response(services.metrics.exposition(), media_type=CONTENT_TYPE)
