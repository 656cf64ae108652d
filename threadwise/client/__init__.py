"""A Python client for threadwise, fit for production: tokens renewed before they expire (or
an API key), retries of what the server says may succeed later with one idempotency key per
call, typed requests and results, summaries streamed, and the WebSocket with many requests in
flight.

    async with ThreadwiseClient(url, api_key="twk_…") as threadwise:
        summary = await threadwise.summarize(conversations, organization="org-1")
        [spanish] = await threadwise.translate(["Hello"], organization="org-1", targets="es")
        async for draft in threadwise.stream_summary(conversations, organization="org-1"):
            print(draft.text)
        job = await threadwise.submit_summarize(conversations, organization="org-1")
        summary = (await job.wait()).result()

``SyncClient`` makes the same calls blocking. It imports nothing else of threadwise: it is
installed alone as the ``threadwise-client`` distribution (``clients/python``).
"""

from __future__ import annotations

from threadwise.client.async_client import DEFAULT_TIMEOUT, ThreadwiseClient
from threadwise.client.auth import ApiKey, ClientCredentials, Credentials, GivenToken
from threadwise.client.errors import SocketClosed, ThreadwiseError
from threadwise.client.jobs import Job, JobError, JobHandle, JobWebhook, WebhookAttempt
from threadwise.client.models import (
    Conversation,
    Glossary,
    GlossaryEntry,
    LanguagePair,
    Languages,
    Message,
    Participant,
    Summary,
    SummaryDraft,
    SummaryItem,
    Translation,
    Usage,
    UsageQuota,
)
from threadwise.client.retry import NEVER, RetryPolicy
from threadwise.client.socket import SuperpowerSocket
from threadwise.client.sync_client import SyncClient, SyncJob

__all__ = [
    "DEFAULT_TIMEOUT",
    "NEVER",
    "ApiKey",
    "ClientCredentials",
    "Conversation",
    "Credentials",
    "GivenToken",
    "Glossary",
    "GlossaryEntry",
    "Job",
    "JobError",
    "JobHandle",
    "JobWebhook",
    "LanguagePair",
    "Languages",
    "Message",
    "Participant",
    "RetryPolicy",
    "SocketClosed",
    "Summary",
    "SummaryDraft",
    "SummaryItem",
    "SuperpowerSocket",
    "SyncClient",
    "SyncJob",
    "ThreadwiseClient",
    "ThreadwiseError",
    "Translation",
    "Usage",
    "UsageQuota",
    "WebhookAttempt",
]
