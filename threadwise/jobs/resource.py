"""A job as the API shows it: ``GET /jobs/{id}``, the lists, and the webhook's ``data``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from threadwise.jobs.store import JobRecord


def job_resource(job: JobRecord, *, with_result: bool = True) -> dict[str, Any]:
    """The job's JSON: its state, progress and dates, and once ended its result or error."""
    resource: dict[str, Any] = {
        "jobId": job.job_id,
        "operation": job.operation,
        "organizationId": job.organization_id,
        "requestId": job.request_id,
        "status": job.status,
        "createdAt": timestamp(job.created_at),
        "startedAt": timestamp(job.started_at),
        "finishedAt": timestamp(job.finished_at),
        "expiresAt": timestamp(job.expires_at),
        "progress": {"done": job.progress_done, "total": job.progress_total},
    }
    if with_result and job.result is not None:
        resource["result"] = job.result
    if job.error_code is not None:
        resource["error"] = {"code": job.error_code, "message": job.error_message or ""}
    resource["webhook"] = (
        None
        if job.webhook_url is None
        else {
            "url": job.webhook_url,
            "status": job.webhook_status,
            "attempts": job.webhook_attempts,
        }
    )
    return resource


def timestamp(when: datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, to the millisecond."""
    if when is None:
        return None
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
