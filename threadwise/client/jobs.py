"""Asynchronous jobs: a summary or translation submitted now (``POST /jobs/…``, 202) and read
when it ends, by polling ``GET /jobs/{id}`` or from the webhook the server posts.

``JobCalls`` holds the jobs API's calls of ``ThreadwiseClient`` (a part of it, kept here);
``Job`` is the job resource as read; ``JobHandle`` a submitted job to wait for.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar, cast

import httpx2

from threadwise.client import bodies
from threadwise.client.errors import ThreadwiseError, retry_after_seconds
from threadwise.client.models import Summary, Translation

Operation = Literal["summarize", "translate"]
JobResult = Summary | list[Translation]
R = TypeVar("R")

TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
# Polls wait poll_interval, then 1.5 times longer each time, up to this (or poll_interval).
MAX_POLL_INTERVAL = 15.0


@dataclass(frozen=True)
class JobError:
    code: str
    message: str


@dataclass(frozen=True)
class WebhookAttempt:
    started_at: datetime | None
    duration_ms: int | None
    status: int | None  # the receiver's HTTP status; None when none came
    error: str | None


@dataclass(frozen=True)
class JobWebhook:
    """Where the job's end is posted: ``status`` is waiting, pending, delivered or failed."""

    url: str
    status: str
    attempts: list[WebhookAttempt]


@dataclass(frozen=True)
class Job(Generic[R]):
    """A job as the server last described it. ``result()`` is its ``Summary`` (summarize) or
    list of ``Translation`` (translate); ``envelope`` the response envelope as
    ``POST /message/*`` answers it (None until completed, and in listings)."""

    job_id: str
    operation: str
    organization_id: str
    request_id: str | None
    status: str  # queued | running | completed | failed | cancelled
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    expires_at: datetime | None
    progress: tuple[int, int]  # (done, total)
    error: JobError | None
    webhook: JobWebhook | None
    envelope: dict[str, Any] | None = field(repr=False)
    raw: dict[str, Any] = field(repr=False)

    @property
    def done(self) -> bool:
        """Ended: completed, failed or cancelled."""
        return self.status in TERMINAL_STATUSES

    def result(self) -> R:
        """The result of a completed job; ``ThreadwiseError`` with the job's error code and
        message for a failed or cancelled one."""
        if self.status in ("failed", "cancelled"):
            error = self.error or JobError("REMOTE_ERROR", f"the job was {self.status}")
            raise ThreadwiseError(error.code, error.message, reply=self.raw)
        if self.status != "completed":
            raise ValueError(
                f"job {self.job_id} is {self.status}, not finished: await its handle's wait()"
            )
        if self.envelope is None:
            raise ValueError(
                f"job {self.job_id} was read without its result (a listing leaves it out, and "
                f"so may a large webhook): get_job({self.job_id!r}) reads it whole"
            )
        if self.operation == "summarize":
            return cast(R, Summary.from_envelope(self.envelope))
        return cast(R, Translation.list_from_envelope(self.envelope))

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Job[R]:
        progress = data.get("progress") or {}
        error = data.get("error")
        webhook = data.get("webhook")
        return cls(
            job_id=data["jobId"],
            operation=data["operation"],
            organization_id=data["organizationId"],
            request_id=data.get("requestId"),
            status=data["status"],
            created_at=_moment(data.get("createdAt")),
            started_at=_moment(data.get("startedAt")),
            finished_at=_moment(data.get("finishedAt")),
            expires_at=_moment(data.get("expiresAt")),
            progress=(int(progress.get("done", 0)), int(progress.get("total", 0))),
            error=None if error is None else JobError(error["code"], error.get("message", "")),
            webhook=None if webhook is None else _webhook(webhook),
            envelope=data.get("result"),
            raw=data,
        )


class JobHandle(Generic[R]):
    """A submitted job: ``job`` as last read, ``await wait()`` for its end."""

    def __init__(self, client: JobCalls, job: Job[R], location: str | None = None) -> None:
        self._client = client
        self.job = job
        # Operation-Location: a path under the server's base URL.
        self.location = location or f"/jobs/{job.job_id}"

    @property
    def job_id(self) -> str:
        return self.job.job_id

    async def refresh(self) -> Job[R]:
        """The job as the server describes it now."""
        self.job, _ = await self._client._read_job(self.location)
        return self.job

    async def wait(self, *, poll_interval: float = 1.0, timeout: float | None = None) -> Job[R]:
        """The job once it ended (check ``status``, or call ``result()``). Polls after the
        server's ``Retry-After``, else after ``poll_interval`` growing 1.5 times a poll;
        ``TimeoutError`` when it has not ended within ``timeout`` seconds."""
        client = self._client
        deadline = None if timeout is None else client._clock() + timeout
        interval, retry_after = poll_interval, None
        while not self.job.done:
            wait = retry_after if retry_after is not None else interval
            if deadline is not None:
                left = deadline - client._clock()
                if left <= 0:
                    raise TimeoutError(
                        f"job {self.job_id} is still {self.job.status} after {timeout} s"
                    )
                wait = min(wait, left)
            await client._sleep(wait)
            interval = min(interval * 1.5, max(MAX_POLL_INTERVAL, poll_interval))
            self.job, retry_after = await client._read_job(self.location)
        return self.job

    async def cancel(self) -> Job[R]:
        """Cancel the job (if it has not ended); the job as it is then."""
        self.job = cast(Job[R], await self._client.cancel_job(self.job_id))
        return self.job


# The most jobs the server takes in one POST /jobs/batch.
MAX_BATCH = 100


class JobCalls:
    """The jobs API's calls of ``ThreadwiseClient``."""

    # ThreadwiseClient's own.
    request: Callable[..., Awaitable[httpx2.Response]]
    _sleep: Callable[[float], Awaitable[None]]
    _clock: Callable[[], float]

    async def submit(
        self,
        operation: Operation,
        body: dict[str, Any],
        *,
        webhook_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> JobHandle[JobResult]:
        """``POST /jobs/<operation>`` with a request body as ``/message/*`` takes it: the
        queued job. One idempotency key (given, or a new one) for all its retries, so that a
        retry gets the same job rather than a second one."""
        if webhook_url is not None:
            body = {**body, "webhook": {"url": webhook_url}}
        key = idempotency_key or str(uuid.uuid4())
        response = await self.request("POST", f"/jobs/{operation}", json=body, idempotency_key=key)
        job: Job[JobResult] = Job.from_wire(response.json())
        return JobHandle(self, job, response.headers.get("Operation-Location"))

    async def submit_many(
        self, jobs: Sequence[tuple[Operation, dict[str, Any]]]
    ) -> list[JobHandle[JobResult] | ThreadwiseError]:
        """Several jobs (operation, request body as ``submit`` takes it), ``POST /jobs/batch``
        100 at a time: for each, in order, the queued job or the error that refused it (the
        others are queued all the same). Each job has an idempotency key of its own, so a
        batch retried after a lost answer makes none twice."""
        answers: list[JobHandle[JobResult] | ThreadwiseError] = []
        for start in range(0, len(jobs), MAX_BATCH):
            items = [
                {"operation": operation, "idempotencyKey": str(uuid.uuid4()), "body": body}
                for operation, body in jobs[start : start + MAX_BATCH]
            ]
            response = await self.request("POST", "/jobs/batch", json={"jobs": items})
            for item in response.json()["jobs"]:
                if item["status"] == 202:
                    job: Job[JobResult] = Job.from_wire(item["job"])
                    answers.append(JobHandle(self, job, f"/jobs/{job.job_id}"))
                else:
                    answers.append(ThreadwiseError.from_reply(item["error"], item["status"]))
        return answers

    async def submit_summarize(
        self,
        conversations: Sequence[bodies.ConversationLike] | bodies.ConversationLike,
        *,
        organization: str,
        language: str | None = None,
        aspects: Sequence[str] | None = None,
        format: str | None = None,
        mode: str | None = None,
        thread_id: str | None = None,
        webhook_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> JobHandle[Summary]:
        """As ``summarize``, as a job; ``webhook_url``: where the server posts its end
        (default: the organization's, if it has one)."""
        body = bodies.summarize_body(
            conversations,
            organization,
            thread_id,
            language=language,
            aspects=aspects,
            format=format,
            mode=mode,
        )
        handle = await self.submit(
            "summarize", body, webhook_url=webhook_url, idempotency_key=idempotency_key
        )
        return cast(JobHandle[Summary], handle)

    async def submit_translate(
        self,
        texts_or_conversations: bodies.TextsOrConversations,
        *,
        organization: str,
        targets: str | Sequence[str],
        mode: str | None = None,
        glossary: str | None = None,
        formality: str | None = None,
        thread_id: str | None = None,
        webhook_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> JobHandle[list[Translation]]:
        """As ``translate``, as a job; ``webhook_url`` as for ``submit_summarize``."""
        body = bodies.message_body(
            bodies.texts_or_conversations(texts_or_conversations),
            organization,
            bodies.translate_settings(
                targets=targets, mode=mode, glossary=glossary, formality=formality
            ),
            thread_id,
        )
        handle = await self.submit(
            "translate", body, webhook_url=webhook_url, idempotency_key=idempotency_key
        )
        return cast(JobHandle[list[Translation]], handle)

    async def get_job(self, job_id: str) -> Job[JobResult]:
        """The job, with its result once completed; ``ThreadwiseError`` ``NOT_FOUND`` for an
        unknown or expired one."""
        job, _ = await self._read_job(f"/jobs/{job_id}")
        return job

    async def list_jobs(
        self, organization: str | None = None, status: str | None = None, limit: int = 20
    ) -> AsyncIterator[Job[JobResult]]:
        """The jobs (newest first, without their results) of ``organization`` (default:
        every one the caller may act for), in ``status`` if given; ``limit`` a page (at most
        100), the pages followed to the last."""
        params = {"limit": str(limit)}
        params |= {k: v for k, v in (("organizationId", organization), ("status", status)) if v}
        while True:
            page = (await self.request("GET", "/jobs", params=params)).json()
            for data in page["jobs"]:
                yield Job.from_wire(data)
            if not page.get("nextCursor"):
                return
            params["cursor"] = page["nextCursor"]

    async def cancel_job(self, job_id: str) -> Job[JobResult]:
        """Cancel a queued or running job; a finished one is answered as it is."""
        return Job.from_wire((await self.request("DELETE", f"/jobs/{job_id}")).json())

    async def _read_job(self, path: str) -> tuple[Job[Any], float | None]:
        """The job at ``path``, and the seconds its ``Retry-After`` asks to wait (or None)."""
        response = await self.request("GET", path)
        return Job.from_wire(response.json()), retry_after_seconds(response.headers)


def _moment(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _webhook(data: Mapping[str, Any]) -> JobWebhook:
    attempts = [
        WebhookAttempt(
            _moment(a.get("startedAt")), a.get("durationMs"), a.get("status"), a.get("error")
        )
        for a in data.get("attempts", [])
    ]
    return JobWebhook(data["url"], data["status"], attempts)
