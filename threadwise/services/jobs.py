"""Build the asynchronous jobs: their records and queue in the service's database, their
webhooks' notifier, and the service that submits and runs them."""

from __future__ import annotations

from datetime import timedelta

from threadwise.config import Settings
from threadwise.db.database import database_url
from threadwise.jobs.notify import WebhookNotifier
from threadwise.jobs.queue import queue_for
from threadwise.jobs.store import JobStore
from threadwise.metrics import Metrics
from threadwise.serving.jobs import JobLimits, Jobs
from threadwise.serving.operations import Operations
from threadwise.webhooks.secret_store import WebhookSecretStore


def build_jobs(
    settings: Settings,
    store: JobStore,
    operations: Operations,
    metrics: Metrics,
) -> Jobs:
    """Jobs on PostgreSQL's queue when the database is PostgreSQL, else in this process
    (refilled from the job records at start-up)."""
    queue = queue_for(database_url(settings), stalled_seconds=settings.jobs_stalled_seconds)
    notifier = WebhookNotifier(
        store,
        WebhookSecretStore(store.database, cache_seconds=settings.store_cache_seconds),
        queue,
        allowed_hosts=settings.webhook_hosts,
        timeout=settings.webhook_timeout_seconds,
        metrics=metrics,
    )
    limits = JobLimits(
        retention=timedelta(hours=settings.jobs_retention_hours),
        max_queued=settings.jobs_max_queued_per_organization,
        concurrency=settings.jobs_concurrency,
        model_concurrency=settings.jobs_model_concurrency,
        model_waits_for_fast_seconds=settings.jobs_model_waits_for_fast_seconds,
        allowed_hosts=settings.webhook_hosts,
        grace_seconds=settings.shutdown_grace_seconds,
    )
    return Jobs(
        store=store,
        queue=queue,
        operations=operations,
        notifier=notifier,
        limits=limits,
        metrics=metrics,
        runs_worker=settings.jobs_worker != "external",
    )
