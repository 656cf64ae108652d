"""``/jobs``: the superpowers as asynchronous jobs. Submitted with the body of
``POST /message/*`` (and an optional webhook), answered ``202`` with ``Operation-Location``;
read, listed and cancelled by the clients of the job's organization."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Security
from fastapi.responses import JSONResponse

from threadwise.api.body import JobItem, read_job_batch, read_job_body
from threadwise.api.deps import Caller, ServingDep, authorization_header
from threadwise.api.openapi import error_responses, request_body
from threadwise.api.records import record_of
from threadwise.api.routes.superpowers import SUMMARIZE_BODY, TRANSLATE_BODY
from threadwise.api.work import IDEMPOTENCY_HEADER
from threadwise.auth.gate import bearer_token
from threadwise.errors import ServiceError
from threadwise.jobs.resource import job_resource
from threadwise.jobs.store import Status
from threadwise.protocol import MessageBody, error_envelope
from threadwise.protocol.jobs import (
    MAX_BATCH_JOBS,
    Job,
    JobBatch,
    JobBatchAnswer,
    JobEvent,
    JobPage,
)
from threadwise.serving.context import ServingContext
from threadwise.serving.idempotency import check_key
from threadwise.serving.jobs import Submission
from threadwise.serving.operations import Operation

router = APIRouter(prefix="/jobs", tags=["jobs"])

_SUBMIT_ERRORS = error_responses(400, 401, 403, 413, 415, 422, 429, 503)
_ERRORS = error_responses(401, 404)
MAX_PAGE = 100


def _callbacks(operation: str) -> list[Any]:
    """The webhook as OpenAPI callbacks show it: what is POSTed to the job's webhook URL."""
    callbacks = APIRouter()

    @callbacks.post(
        "{$request.body#/webhook/url}", status_code=204, operation_id=f"{operation}JobEnded"
    )
    def job_ended(event: JobEvent) -> None:  # pragma: no cover (documentation only)
        """Sent when the job ends, with the headers `webhook-id` (the same on every retry),
        `webhook-timestamp` and `webhook-signature` (Standard Webhooks, signed with the
        organization's `whsec_` secret). Answer 2xx within 10 s; anything else is retried for
        about a day (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)."""

    return callbacks.routes


def _with_webhook(body: dict[str, Any]) -> dict[str, Any]:
    """The request body of ``POST /message/*``, with the job's optional webhook."""
    content = body["requestBody"]["content"]["application/json"]
    schema = {
        "allOf": [
            content["schema"],
            {
                "type": "object",
                "properties": {
                    "webhook": {
                        "type": "object",
                        "required": ["url"],
                        "properties": {"url": {"type": "string", "maxLength": 2048}},
                        "description": "Where to POST the job's end; default: the "
                        "organization's webhook URL, if it has one.",
                    }
                },
            },
        ]
    }
    return {
        "requestBody": {
            **body["requestBody"],
            "content": {"application/json": {**content, "schema": schema}},
        }
    }


_ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {
        "model": Job,
        "description": "Queued (or, with an Idempotency-Key used before, the job it made).",
        "headers": {
            "Operation-Location": {
                "description": "The job's path: GET it for its status and result.",
                "schema": {"type": "string"},
            }
        },
    }
}


async def _submit(
    request: Request, operation: Operation, authorization: str | None
) -> JSONResponse:
    serving: ServingContext = request.app.state.serving
    given: dict[str, str | None] = {}

    async def read(_: Any) -> MessageBody:
        body, given["webhook"] = await read_job_body(request, serving.settings.max_body_bytes)
        return body

    admitted = await serving.admission.admit(
        operation,
        bearer_token(authorization),
        request.headers.get("host"),
        read,
        record_of(request),
    )
    key = request.headers.get(IDEMPOTENCY_HEADER)
    job, _ = await serving.jobs.submit(
        admitted,
        webhook_url=given.get("webhook"),
        idempotency_key=check_key(key, f"The {IDEMPOTENCY_HEADER} header") if key else None,
    )
    return JSONResponse(
        job_resource(job),
        status_code=202,
        headers={"Operation-Location": f"/jobs/{job.job_id}"},
    )


@router.post(
    "/summarize",
    status_code=202,
    responses={**_ACCEPTED, **_SUBMIT_ERRORS},
    openapi_extra=_with_webhook(SUMMARIZE_BODY),
    callbacks=_callbacks("summarize"),
)
async def submit_summarize(
    request: Request, authorization: Annotated[str | None, Security(authorization_header)]
) -> JSONResponse:
    """Summarize as a job: the body of `POST /message/summarize`, answered at once with the
    queued job. An `Idempotency-Key` header makes a retry return the same job."""
    return await _submit(request, "summarize", authorization)


@router.post(
    "/translate",
    status_code=202,
    responses={**_ACCEPTED, **_SUBMIT_ERRORS},
    openapi_extra=_with_webhook(TRANSLATE_BODY),
    callbacks=_callbacks("translate"),
)
async def submit_translate(
    request: Request, authorization: Annotated[str | None, Security(authorization_header)]
) -> JSONResponse:
    """Translate as a job: the body of `POST /message/translate`, answered at once with the
    queued job; its progress counts conversations. An `Idempotency-Key` header makes a retry
    return the same job."""
    return await _submit(request, "translate", authorization)


@router.post(
    "/batch",
    response_model=JobBatchAnswer,
    responses=error_responses(400, 401, 413, 415, 422, 503),
    openapi_extra=request_body(JobBatch),
)
async def submit_batch(
    request: Request, authorization: Annotated[str | None, Security(authorization_header)]
) -> JSONResponse:
    """Submit up to 100 jobs in one request: `{"jobs": [{"operation": "translate",
    "idempotencyKey": "…", "body": {…}}, …]}`, each `body` what `POST /jobs/{operation}`
    takes. Answered `200` with one item per job, in order: `202` and the queued job, or the
    error that job met (the others are queued all the same). The jobs count in the rate
    limits as so many requests. Send each job an `idempotencyKey`, and a batch whose answer
    was lost can be sent again whole: it answers the jobs already made, and makes the rest."""
    serving: ServingContext = request.app.state.serving
    admission = serving.admission
    caller = await admission.gate.authenticate(
        bearer_token(authorization), request.headers.get("host")
    )
    items = await read_job_batch(request, serving.settings.max_body_bytes, MAX_BATCH_JOBS)
    admitted = await admission.admit_each(
        caller,
        [item if isinstance(item, ServiceError) else (item.operation, item.body) for item in items],
    )
    submissions: dict[int, Submission] = {}
    answers: list[dict[str, Any]] = [{} for _ in items]
    for index, (item, answer) in enumerate(zip(items, admitted, strict=True)):
        if isinstance(answer, ServiceError):
            answers[index] = _refused(answer, index)
        else:
            assert isinstance(item, JobItem)
            submissions[index] = Submission(answer, item.webhook_url, item.idempotency_key)
    submitted = await serving.jobs.submit_many(list(submissions.values()))
    for index, outcome in zip(submissions, submitted, strict=True):
        if isinstance(outcome, ServiceError):
            answers[index] = _refused(outcome, index)
        else:
            answers[index] = {"status": 202, "job": job_resource(outcome[0])}
    return JSONResponse({"jobs": answers})


def _refused(error: ServiceError, index: int) -> dict[str, Any]:
    """A batch's item for a job refused: its status and error envelope (its message naming
    the job, ``jobs[i]: …``)."""
    if not error.message.startswith("jobs["):
        error = ServiceError(
            error.code, f"jobs[{index}]: {error.message}", retry_after=error.retry_after
        )
    envelope = error_envelope("job", error.code, error.message, retry_after=error.retry_after)
    return {"status": error.code.http_status, "error": envelope.to_wire()}


@router.get("", response_model=JobPage, responses=error_responses(401, 403, 422))
async def list_jobs(
    caller: Caller,
    serving: ServingDep,
    organization: Annotated[
        str | None,
        Query(alias="organizationId", description="Default: every one the client may act for."),
    ] = None,
    status: Annotated[Status | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> JSONResponse:
    """The organization's jobs, newest first, without their results; follow `nextCursor`."""
    page = await serving.jobs.page(caller, organization, status, limit, cursor)
    return JSONResponse(
        {
            "jobs": [job_resource(job, with_result=False) for job in page.jobs],
            "nextCursor": page.next_cursor,
        }
    )


@router.get("/{job_id}", response_model=Job, responses=_ERRORS)
async def get_job(job_id: str, caller: Caller, serving: ServingDep) -> JSONResponse:
    """The job: its status and progress, and once completed its result (the envelope the
    synchronous call returns), kept until `expiresAt`."""
    return JSONResponse(job_resource(await serving.jobs.get(caller, job_id)))


@router.delete("/{job_id}", response_model=Job, responses=_ERRORS)
async def cancel_job(job_id: str, caller: Caller, serving: ServingDep) -> JSONResponse:
    """Cancel a queued or running job (its characters are given back to the quota); a job
    that has ended is answered as it is."""
    return JSONResponse(job_resource(await serving.jobs.cancel(caller, job_id)))
