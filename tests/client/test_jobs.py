"""The client's jobs calls against the jobs API played over a fake transport: a submission
waited for through its statuses, a failed or cancelled job raised, listings over pages, one
idempotency key for a submission and its retries, the blocking wrapper."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import httpx2
import pytest

from tests.client.jobs_server import JobsServer, error_reply
from tests.clock import ManualClock
from threadwise.client import Job, RetryPolicy, SyncClient, ThreadwiseClient, ThreadwiseError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Waits:
    """The client's sleep: records each wait and moves the clock on by it."""

    def __init__(self) -> None:
        self.clock = ManualClock()
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        self.clock.now += seconds


def client(server: JobsServer, waits: Waits) -> ThreadwiseClient:
    return ThreadwiseClient(
        "http://threadwise.test",
        api_key="twk_test",
        transport=httpx2.MockTransport(server),
        retry=RetryPolicy(random=lambda: 0.5),
        sleep=waits,
        clock=waits.clock,
    )


def reads(server: JobsServer) -> list[str]:
    return [f"{r.method} {r.url.path}" for r in server.requests]


async def test_a_summary_submitted_is_polled_until_it_completes() -> None:
    server, waits = JobsServer(), Waits()
    async with client(server, waits) as threadwise:
        handle = await threadwise.submit_summarize(
            {"messages": ["My parcel 7781 is late."]},
            organization="org-1",
            language="en",
            webhook_url="https://receiver.test/hook",
        )
        assert handle.job.status == "queued" and handle.location == f"/jobs/{handle.job_id}"
        job = await handle.wait(poll_interval=0.5)
    assert job.status == "completed" and job.done and job.progress == (1, 1)
    assert job.result().text == "A parcel is late."
    assert job.finished_at == datetime(2026, 11, 27, 12, 0, 2, tzinfo=UTC)
    assert job.webhook is not None and job.webhook.url == "https://receiver.test/hook"
    assert reads(server) == ["POST /jobs/summarize", *[f"GET /jobs/{job.job_id}"] * 2]
    assert waits.seconds == [0.5, 0.75]  # poll_interval, then 1.5 times longer
    body = json.loads(server.requests[0].content)
    assert body["webhook"] == {"url": "https://receiver.test/hook"}
    assert body["request"]["context"] == {"organizationId": "org-1"}
    assert body["request"]["settings"] == {"overrideOutputLanguage": "en"}


async def test_the_servers_retry_after_sets_the_next_poll() -> None:
    server, waits = JobsServer(retry_after="3"), Waits()
    async with client(server, waits) as threadwise:
        handle = await threadwise.submit_translate(["Hello"], organization="o", targets="es")
        job = await handle.wait(poll_interval=0.5)
    [translation] = job.result()
    assert translation.text == "Hola" and translation.target_language == "es"
    assert waits.seconds == [0.5, 3.0]


async def test_a_failed_job_raises_its_error_on_result() -> None:
    server, waits = JobsServer(outcome="failed"), Waits()
    async with client(server, waits) as threadwise:
        job = await (
            await threadwise.submit_summarize({"messages": ["Hi"]}, organization="o")
        ).wait()
    assert job.status == "failed" and job.done
    with pytest.raises(ThreadwiseError) as failed:
        job.result()
    assert failed.value.code == "PROCESSING_FAILED"
    assert failed.value.message == "the engine failed" and failed.value.status is None


async def test_a_cancelled_job_raises_request_cancelled() -> None:
    server, waits = JobsServer(), Waits()
    async with client(server, waits) as threadwise:
        handle = await threadwise.submit_translate("Hello", organization="o", targets="es")
        cancelled = await threadwise.cancel_job(handle.job_id)
        assert (await handle.wait()).status == "cancelled"  # the handle reads it at its poll
    assert cancelled.status == "cancelled" and cancelled.done
    assert reads(server)[1:] == [f"DELETE /jobs/{handle.job_id}", f"GET /jobs/{handle.job_id}"]
    with pytest.raises(ThreadwiseError) as failed:
        cancelled.result()
    assert failed.value.code == "REQUEST_CANCELLED"


async def test_a_job_not_ended_within_the_timeout() -> None:
    server, waits = JobsServer(outcome="running"), Waits()
    async with client(server, waits) as threadwise:
        handle = await threadwise.submit_translate("Hello", organization="o", targets="es")
        with pytest.raises(TimeoutError, match="still running after 2"):
            await handle.wait(poll_interval=1.0, timeout=2)
    assert waits.seconds == [1.0, 1.0]  # the second cut to what was left
    with pytest.raises(ValueError, match="not finished"):
        handle.job.result()


async def test_listing_follows_the_pages_newest_first() -> None:
    server, waits = JobsServer(), Waits()
    async with client(server, waits) as threadwise:
        handles = [
            await threadwise.submit_translate(f"Text {n}", organization="o", targets="es")
            for n in range(3)
        ]
        await handles[0].wait()
        listed = [job async for job in threadwise.list_jobs("o", limit=2)]
        completed = [job async for job in threadwise.list_jobs(status="completed")]
    assert [job.job_id for job in listed] == [h.job_id for h in reversed(handles)]
    pages = [dict(r.url.params) for r in server.requests if r.url.path == "/jobs"]
    assert pages == [
        {"limit": "2", "organizationId": "o"},
        {"limit": "2", "organizationId": "o", "cursor": "2"},
        {"limit": "20", "status": "completed"},
    ]
    assert [job.job_id for job in completed] == [handles[0].job_id]
    with pytest.raises(ValueError, match="without its result"):
        completed[0].result()


async def test_a_submission_retried_after_a_503_keeps_its_key() -> None:
    server, waits = JobsServer(error_reply(503, "OVERLOADED", retryable=True)), Waits()
    async with client(server, waits) as threadwise:
        handle = await threadwise.submit_summarize({"messages": ["Hi"]}, organization="o")
        again = await threadwise.submit_summarize({"messages": ["Hi"]}, organization="o")
    first, retried, other = (r.headers.get("Idempotency-Key") for r in server.requests)
    assert first and first == retried and other != first
    assert list(server.jobs) == [handle.job_id, again.job_id] and len(waits.seconds) == 1


async def test_an_unknown_job_is_not_found() -> None:
    async with client(JobsServer(), Waits()) as threadwise:
        with pytest.raises(ThreadwiseError) as missing:
            await threadwise.get_job("job_gone")
    assert missing.value.code == "NOT_FOUND" and missing.value.status == 404


def test_the_job_resource_as_read() -> None:
    data: dict[str, Any] = {
        "jobId": "job_1",
        "operation": "translate",
        "organizationId": "org-1",
        "requestId": "req-9",
        "status": "completed",
        "createdAt": "2026-11-27T12:00:00Z",
        "startedAt": "2026-11-27T12:00:01Z",
        "finishedAt": "2026-11-27T12:00:03Z",
        "expiresAt": "2026-11-28T12:00:03Z",
        "progress": {"done": 3, "total": 3},
        "error": None,
        "webhook": {
            "url": "https://receiver.test/hook",
            "status": "failed",
            "attempts": [
                {
                    "startedAt": "2026-11-27T12:00:04Z",
                    "durationMs": 12,
                    "status": 500,
                    "error": None,
                }
            ],
        },
    }
    job: Job[Any] = Job.from_wire(data)
    assert (job.request_id, job.progress, job.envelope) == ("req-9", (3, 3), None)
    assert job.created_at == datetime(2026, 11, 27, 12, tzinfo=UTC)
    assert job.webhook is not None and job.webhook.status == "failed"
    [attempt] = job.webhook.attempts
    assert (attempt.status, attempt.duration_ms, attempt.error) == (500, 12, None)


def test_the_blocking_client_submits_waits_and_lists() -> None:
    server, waits = JobsServer(), Waits()
    with SyncClient(
        "http://threadwise.test",
        api_key="twk_test",
        transport=httpx2.MockTransport(server),
        sleep=waits,
        clock=waits.clock,
    ) as threadwise:
        job = threadwise.submit_translate(["Hello"], organization="o", targets="es")
        [translation] = job.wait().result()
        assert translation.text == "Hola"
        assert [j.job_id for j in threadwise.list_jobs(limit=1)] == [job.job_id]
        assert threadwise.get_job(job.job_id).status == "completed"
        assert threadwise.cancel_job(job.job_id).status == "completed"  # it had ended
