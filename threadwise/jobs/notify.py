"""A job's webhook, delivered when the job ends: signed, sent to a checked target, each attempt
recorded on the job, and retried on the Standard Webhooks schedule through the job queue (so a
retry survives a restart and may be made by any replica)."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from collections.abc import Collection, Sequence
from datetime import timedelta
from typing import Any

import anyio.to_thread

from threadwise.jobs.queue import JobQueue
from threadwise.jobs.resource import job_resource, timestamp
from threadwise.jobs.store import AttemptRecord, JobRecord, JobStore
from threadwise.metrics import Metrics
from threadwise.webhooks.delivery import Attempt, Sender
from threadwise.webhooks.schedule import next_delay
from threadwise.webhooks.secret_store import WebhookSecretStore
from threadwise.webhooks.signing import signed_headers
from threadwise.webhooks.targets import Target, TargetError, UnsafeTarget, resolve_target

log = logging.getLogger(__name__)

# Above this, the webhook leaves the result out: the receiver GETs the job.
MAX_PAYLOAD_BYTES = 256 * 1024
# Retries of many webhooks that failed together (a receiver down) spread over ±10%.
JITTER = 0.1
# A batch's webhooks are sent side by side, this many at a time.
AT_ONCE = 16


class WebhookNotifier:
    """Deliver jobs' webhooks now, and queue the next attempt of each that fails."""

    def __init__(
        self,
        store: JobStore,
        secrets: WebhookSecretStore,
        queue: JobQueue,
        *,
        allowed_hosts: Collection[str] = (),
        timeout: float = 10.0,
        tls: ssl.SSLContext | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.secrets = secrets
        self.queue = queue
        self.allowed_hosts = allowed_hosts
        self.timeout = timeout
        self.tls = tls
        self.metrics = metrics

    async def __call__(self, job_id: str) -> None:
        """The next attempt of ``job_id``'s webhook (the queue's task for a retry)."""
        job = await anyio.to_thread.run_sync(self.store.get, job_id, True)
        if job is not None:
            await self.deliver([job])

    async def deliver(self, jobs: Sequence[JobRecord]) -> None:
        """An attempt of each job's webhook as its record has it (those with none due are
        passed over), side by side; the attempts recorded together."""
        due = [job for job in jobs if job.webhook_status == "pending" and job.webhook_url]
        if not due:
            return  # delivered or given up meanwhile
        signing: dict[tuple[str, str], list[str]] = {}
        for job in due:
            key = (job.tenant, job.organization_id)
            if key not in signing:
                current = await anyio.to_thread.run_sync(self.secrets.current, *key)
                signing[key] = [secret.secret for secret in current]
        # Each URL resolved and checked once for the batch (its webhooks go at one moment).
        urls = list(dict.fromkeys(job.webhook_url for job in due if job.webhook_url))
        resolved = await asyncio.gather(
            *(resolve_target(url, self.allowed_hosts) for url in urls), return_exceptions=True
        )
        targets = dict(zip(urls, resolved, strict=True))
        slots = asyncio.Semaphore(AT_ONCE)

        async def one(job: JobRecord, sender: Sender) -> tuple[Attempt, bool]:
            assert job.webhook_url is not None
            async with slots:
                secrets = signing[job.tenant, job.organization_id]
                return await self._attempt(job, secrets, targets[job.webhook_url], sender)

        async with Sender(timeout=self.timeout, tls=self.tls) as sender:
            outcomes = await asyncio.gather(*(one(job, sender) for job in due))
        records: list[AttemptRecord] = []
        retries: list[tuple[str, float]] = []
        for job, (attempt, final) in zip(due, outcomes, strict=True):
            attempts = [*job.webhook_attempts, _shown(attempt)]
            if attempt.ok:
                self._count("delivered")
                records.append(AttemptRecord(job.job_id, attempts, "delivered", None))
                continue
            made = len(attempts)
            delay = None if final else next_delay(made, jitter=JITTER)
            if delay is None:
                log.warning("job %s: its webhook was given up after %d attempts", job.job_id, made)
                self._count("failed")
                records.append(AttemptRecord(job.job_id, attempts, "failed", None))
                continue
            self._count("retried")
            next_at = self.store.now() + timedelta(seconds=delay)
            records.append(AttemptRecord(job.job_id, attempts, "pending", next_at))
            retries.append((job.job_id, delay))
        await anyio.to_thread.run_sync(self.store.record_attempts, records)
        for job_id, delay in retries:
            await self.queue.defer_notice(job_id, delay=delay)

    def _count(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.webhook_attempts.labels(outcome).inc()

    async def _attempt(
        self,
        job: JobRecord,
        secrets: list[str],
        target: Target | BaseException,
        sender: Sender,
    ) -> tuple[Attempt, bool]:
        """The attempt to ``target`` (or why its URL is not called), and whether no retry could
        change its outcome (an unsafe URL)."""
        assert job.webhook_message_id is not None
        started = self.store.now()
        if not secrets:
            error = (
                f"The organization {job.organization_id!r} has no webhook signing secret: "
                "create one (`threadwise webhooks secret create ORG`)."
            )
            return Attempt(started, 0, None, error), False
        if isinstance(target, TargetError):
            return Attempt(started, 0, None, str(target)), isinstance(target, UnsafeTarget)
        if isinstance(target, BaseException):
            raise target
        body = payload(job)
        headers = signed_headers(secrets, job.webhook_message_id, started, body)
        return await sender.deliver(target, body, headers), False


def _shown(attempt: Attempt) -> dict[str, Any]:
    """An attempt as the job shows it."""
    return {
        "startedAt": timestamp(attempt.started_at),
        "durationMs": attempt.duration_ms,
        "status": attempt.status,
        "error": attempt.error,
    }


def payload(job: JobRecord) -> bytes:
    """The webhook's body: the event and the job, its result left out when too large."""
    event: dict[str, Any] = {
        "type": f"job.{job.status}",
        "timestamp": timestamp(job.finished_at or job.updated_at),
        "data": job_resource(job),
    }
    body = _json(event)
    if len(body) > MAX_PAYLOAD_BYTES:
        event["data"] = job_resource(job, with_result=False) | {"resultOmitted": True}
        body = _json(event)
    return body


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
