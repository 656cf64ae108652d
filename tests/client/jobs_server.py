"""A jobs API played over ``httpx2.MockTransport`` as the wire format says, for the client's
unit tests: each read of a job moves it one step on (queued, running, then its outcome)."""

from __future__ import annotations

import json
from typing import Any

import httpx2

SUMMARY_ENVELOPE = {
    "action": "superpower",
    "actionType": "summarize",
    "state": "completed",
    "requestId": "req-1",
    "message": {"results": [{"response": [{"content": "A parcel is late.", "language": "en"}]}]},
}
TRANSLATION_ENVELOPE = {
    "action": "superpower",
    "actionType": "translate",
    "state": "completed",
    "message": {"results": [{"response": [{"content": "Hola", "targetLanguage": "es"}]}]},
}
ENVELOPES = {"summarize": SUMMARY_ENVELOPE, "translate": TRANSLATION_ENVELOPE}


def error_reply(status: int, code: str, retryable: bool = False) -> httpx2.Response:
    error = {"code": code, "message": f"{code} for the test", "retryable": retryable}
    body = {"state": "error", "error": error}
    return httpx2.Response(status, json=body)


class JobsServer:
    """Jobs that end as ``outcome`` (completed or failed; running: never) on their third
    read; ``before``: answers given first, whatever was asked; ``retry_after``: the header on
    each read."""

    def __init__(
        self,
        *before: httpx2.Response,
        outcome: str = "completed",
        retry_after: str | None = None,
    ) -> None:
        self.before = list(before)
        self.outcome = outcome
        self.retry_after = retry_after
        self.requests: list[httpx2.Request] = []
        self.jobs: dict[str, dict[str, Any]] = {}  # newest last
        self.keys: dict[str, str] = {}  # Idempotency-Key: jobId

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        if self.before:
            return self.before.pop(0)
        path = request.url.path
        if request.method == "POST" and path.startswith("/jobs/"):
            return self.submit(path.removeprefix("/jobs/"), request)
        if request.method == "GET" and path == "/jobs":
            return self.listing(request.url.params)
        job = self.jobs.get(path.removeprefix("/jobs/"))
        if job is None:
            return error_reply(404, "NOT_FOUND")
        if request.method == "DELETE":
            if job["status"] in ("queued", "running"):
                job.update(status="cancelled", finishedAt="2026-11-27T12:00:05Z")
                job["error"] = {"code": "REQUEST_CANCELLED", "message": "cancelled by the client"}
            return httpx2.Response(200, json=job)
        self.advance(job)
        headers = {"Retry-After": self.retry_after} if self.retry_after else {}
        return httpx2.Response(200, json=job, headers=headers)

    def submit(self, operation: str, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        key = request.headers.get("Idempotency-Key")
        job_id = self.keys.get(key) if key else None
        if job_id is None:
            job_id = f"job_{len(self.jobs):032x}"
            self.jobs[job_id] = self.new_job(job_id, operation, body)
            if key:
                self.keys[key] = job_id
        headers = {"Operation-Location": f"/jobs/{job_id}"}
        return httpx2.Response(202, json=self.jobs[job_id], headers=headers)

    def new_job(self, job_id: str, operation: str, body: dict[str, Any]) -> dict[str, Any]:
        webhook = body.get("webhook")
        return {
            "jobId": job_id,
            "operation": operation,
            "organizationId": body["request"]["context"]["organizationId"],
            "requestId": None,
            "status": "queued",
            "createdAt": "2026-11-27T12:00:00Z",
            "startedAt": None,
            "finishedAt": None,
            "expiresAt": None,
            "progress": {"done": 0, "total": 1},
            "error": None,
            "webhook": None
            if webhook is None
            else {**webhook, "status": "waiting", "attempts": []},
        }

    def advance(self, job: dict[str, Any]) -> None:
        if job["status"] == "queued":
            job.update(status="running", startedAt="2026-11-27T12:00:01Z")
        elif job["status"] == "running" and self.outcome != "running":
            job.update(finishedAt="2026-11-27T12:00:02Z", expiresAt="2026-11-28T12:00:02Z")
            job["progress"] = {"done": 1, "total": 1}
            if self.outcome == "completed":
                job.update(status="completed", result=ENVELOPES[job["operation"]])
            else:
                job["status"] = "failed"
                job["error"] = {"code": "PROCESSING_FAILED", "message": "the engine failed"}

    def listing(self, params: httpx2.QueryParams) -> httpx2.Response:
        newest_first = [
            {k: v for k, v in job.items() if k != "result"}
            for job in reversed(self.jobs.values())
            if params.get("status") in (None, job["status"])
        ]
        start = int(params.get("cursor", "0"))
        end = start + int(params.get("limit", "20"))
        cursor = str(end) if end < len(newest_first) else None
        return httpx2.Response(200, json={"jobs": newest_first[start:end], "nextCursor": cursor})
