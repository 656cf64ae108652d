"""``GET /metrics``: Prometheus metrics, for its own token when THREADWISE_METRICS_TOKEN is set,
else for this machine only."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from threadwise.api.deps import MetricsAccess, ServingDep
from threadwise.api.openapi import error_responses
from threadwise.metrics import CONTENT_TYPE
from threadwise.serving.context import ServingContext

router = APIRouter(tags=["operations"])


_TEXT = {
    "description": "The Prometheus text format",
    "content": {"text/plain": {"schema": {"type": "string"}}},
}


# A plain Response class: no JSON is documented for 200, and errors stay JSON envelopes.
@router.get(
    "/metrics",
    dependencies=[MetricsAccess],
    response_class=Response,
    responses={200: _TEXT, **error_responses(401)},
)
async def metrics(serving: ServingDep) -> Response:
    serving.metrics.ready.set(1 if serving.readiness.ready else 0)
    serving.metrics.in_flight.set(serving.lifecycle.in_flight)
    queued, oldest = await serving.jobs.depth()
    serving.metrics.jobs_queued.set(queued)
    serving.metrics.jobs_oldest_queued.set(oldest)
    return Response(serving.metrics.exposition(*_worker(serving)), media_type=CONTENT_TYPE)


def _worker(serving: ServingContext) -> list[str]:
    """What this replica's job worker last wrote of its metrics, when it runs apart."""
    path = serving.settings.jobs_worker_metrics_file
    if path is None or serving.jobs.runs_worker:
        return []
    try:
        return [path.read_text(encoding="utf-8")]
    except OSError:
        return []  # not written yet: the worker is starting
