"""A job's webhook, delivered when the job ends: signed, sent to a checked target, each attempt
recorded on the job, and retried on the Standard Webhooks schedule through the job queue (so a
retry survives a restart and may be made by any replica)."""

from __future__ import annotations

import json
import logging
import ssl
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

import anyio.to_thread

from threadwise.jobs.queue import JobQueue
from threadwise.jobs.resource import job_resource, timestamp
from threadwise.jobs.store import JobRecord, JobStore, WebhookStatus
from threadwise.metrics import Metrics
from threadwise.webhooks.delivery import Attempt, deliver
from threadwise.webhooks.schedule import next_delay
from threadwise.webhooks.secret_store import WebhookSecretStore
from threadwise.webhooks.signing import signed_headers
from threadwise.webhooks.targets import TargetError, UnsafeTarget, resolve_target

log = logging.getLogger(__name__)

# Above this, the webhook leaves the result out: the receiver GETs the job.
MAX_PAYLOAD_BYTES = 256 * 1024
# Retries of many webhooks that failed together (a receiver down) spread over ±10%.
JITTER = 0.1


class WebhookNotifier:
    """Deliver one job's webhook now, and queue the next attempt if this one fails."""

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
            await self.deliver(job)

    async def deliver(self, job: JobRecord) -> None:
        """An attempt of ``job``'s webhook as the record has it, unless there is none due."""
        if job.webhook_status != "pending" or job.webhook_url is None:
            return  # delivered or given up meanwhile
        body = payload(job)
        attempt, final = await self._attempt(job, body)
        if attempt.ok:
            self._count("delivered")
            await self._record(job, attempt, "delivered", None)
            return
        made = len(job.webhook_attempts) + 1
        delay = None if final else next_delay(made, jitter=JITTER)
        if delay is None:
            log.warning("job %s: its webhook was given up after %d attempts", job.job_id, made)
            self._count("failed")
            await self._record(job, attempt, "failed", None)
            return
        self._count("retried")
        await self._record(job, attempt, "pending", self.store.now() + timedelta(seconds=delay))
        await self.queue.defer_notice(job.job_id, delay=delay)

    def _count(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.webhook_attempts.labels(outcome).inc()

    async def _attempt(self, job: JobRecord, body: bytes) -> tuple[Attempt, bool]:
        """The attempt, and whether no retry could change its outcome (an unsafe URL)."""
        assert job.webhook_url is not None and job.webhook_message_id is not None
        started = self.store.now()
        signing = await anyio.to_thread.run_sync(
            self.secrets.current, job.tenant, job.organization_id
        )
        if not signing:
            error = (
                f"The organization {job.organization_id!r} has no webhook signing secret: "
                "create one (`threadwise webhooks secret create ORG`)."
            )
            return Attempt(started, 0, None, error), False
        try:
            target = await resolve_target(job.webhook_url, self.allowed_hosts)
        except TargetError as exc:
            return Attempt(started, 0, None, str(exc)), isinstance(exc, UnsafeTarget)
        headers = signed_headers([s.secret for s in signing], job.webhook_message_id, started, body)
        return await deliver(target, body, headers, timeout=self.timeout, tls=self.tls), False

    async def _record(
        self,
        job: JobRecord,
        attempt: Attempt,
        status: WebhookStatus,
        next_at: datetime | None,
    ) -> None:
        shown = {
            "startedAt": timestamp(attempt.started_at),
            "durationMs": attempt.duration_ms,
            "status": attempt.status,
            "error": attempt.error,
        }
        attempts = [*job.webhook_attempts, shown]
        await anyio.to_thread.run_sync(
            self.store.record_attempt, job.job_id, attempts, status, next_at
        )


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
