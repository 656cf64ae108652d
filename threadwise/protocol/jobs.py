"""The asynchronous jobs' wire models (``/jobs``), as ``/openapi.json`` documents them: a job,
a page of jobs, and the event a webhook carries."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from threadwise.protocol.response import Envelope, ErrorEnvelope

# The most jobs one batch submission (POST /jobs/batch) carries.
MAX_BATCH_JOBS = 100

JobStatus = Literal["queued", "running", "completed", "failed", "cancelled"]


class JobProgress(BaseModel):
    done: int = Field(description="Parts done: conversations of a translation, 1 for a summary.")
    total: int


class JobError(BaseModel):
    code: str = Field(description="An error code, as in error envelopes.")
    message: str


class WebhookAttempt(BaseModel):
    startedAt: str
    durationMs: int
    status: int | None = Field(description="The receiver's HTTP status; null: no answer.")
    error: str | None = Field(description="Why the attempt failed; null when it was taken.")


class JobWebhook(BaseModel):
    url: str
    status: Literal["waiting", "pending", "delivered", "failed"] = Field(
        description="`waiting` for the job to end, `pending` being delivered (retried for "
        "about a day), `delivered`, or `failed` (given up)."
    )
    attempts: list[WebhookAttempt]


class Job(BaseModel):
    """An asynchronous summarize or translate request."""

    jobId: str
    operation: Literal["summarize", "translate"]
    organizationId: str
    requestId: str | None
    status: JobStatus
    createdAt: str
    startedAt: str | None
    finishedAt: str | None
    expiresAt: str | None = Field(
        description="When the job and its result are removed (then 404); set once it ends."
    )
    progress: JobProgress
    result: Envelope | None = Field(
        default=None,
        description="Once completed: the response envelope the synchronous call returns.",
    )
    error: JobError | None = Field(
        default=None, description="Once failed (or cancelled: `REQUEST_CANCELLED`)."
    )
    webhook: JobWebhook | None


class JobPage(BaseModel):
    """A page of jobs, newest first, without their results."""

    jobs: list[Job]
    nextCursor: str | None = Field(description="Send as `cursor` for the next page; null: last.")


class JobEvent(BaseModel):
    """What a job's webhook POSTs when the job ends, signed per Standard Webhooks."""

    type: Literal["job.completed", "job.failed", "job.cancelled"]
    timestamp: str
    data: Job = Field(
        description="The job; its result left out (and `resultOmitted` true) above 256 KiB."
    )


class JobSubmission(BaseModel):
    """One job of a batch submission."""

    operation: Literal["summarize", "translate"]
    idempotencyKey: str | None = Field(
        default=None,
        description="As the Idempotency-Key header of a single submission: the batch sent "
        "again answers the jobs it made, and makes the others.",
    )
    body: dict[str, Any] = Field(
        description="The body `POST /jobs/{operation}` takes (the request, and an optional "
        "webhook)."
    )


class JobBatch(BaseModel):
    """Several jobs submitted in one request."""

    jobs: list[JobSubmission] = Field(min_length=1, max_length=MAX_BATCH_JOBS)


class JobBatchItem(BaseModel):
    """What became of one job of a batch, in the batch's order."""

    status: int = Field(
        description="202: queued (or the job its idempotencyKey made before); else the HTTP "
        "status the error would have as a request of its own."
    )
    job: Job | None = Field(default=None, description="With 202.")
    error: ErrorEnvelope | None = Field(default=None, description="Otherwise.")


class JobBatchAnswer(BaseModel):
    jobs: list[JobBatchItem]
