"""``SyncClient``: the async client's calls, blocking, for scripts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any, Generic, Self, TypeVar

from threadwise.client.async_client import Superpower, ThreadwiseClient
from threadwise.client.bodies import ConversationLike, TextsOrConversations
from threadwise.client.errors import ThreadwiseError
from threadwise.client.jobs import Job, JobHandle, JobResult
from threadwise.client.models import (
    Glossary,
    Languages,
    Summary,
    SummaryDraft,
    Translation,
    Usage,
)

R = TypeVar("R")


class SyncClient:
    """Blocking calls, for scripts: ``SyncClient(url, api_key=…)`` takes what
    ``ThreadwiseClient`` takes. ``call`` sends a raw request body (over a WebSocket opened for
    the call with ``websocket=True``)."""

    def __init__(self, base_url: str, **options: Any) -> None:
        self._runner = asyncio.Runner()
        self._client: ThreadwiseClient = self._runner.run(_build(base_url, options))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._runner.run(self._client.aclose())
        self._runner.close()

    def token(self) -> str:
        return self._runner.run(self._client.token())

    def call(
        self, action: Superpower, body: dict[str, Any], *, websocket: bool = False
    ) -> dict[str, Any]:
        """The completed envelope answering a request body as the API takes it."""
        return self._runner.run(self._call(action, body, websocket))

    def summarize(
        self,
        conversations: Sequence[ConversationLike] | ConversationLike,
        *,
        organization: str,
        **options: Any,
    ) -> Summary:
        """As ``ThreadwiseClient.summarize``."""
        return self._runner.run(
            self._client.summarize(conversations, organization=organization, **options)
        )

    def translate(
        self,
        texts_or_conversations: TextsOrConversations,
        *,
        organization: str,
        targets: str | Sequence[str],
        **options: Any,
    ) -> list[Translation]:
        """As ``ThreadwiseClient.translate``."""
        return self._runner.run(
            self._client.translate(
                texts_or_conversations, organization=organization, targets=targets, **options
            )
        )

    def stream_summary(
        self,
        conversations: Sequence[ConversationLike] | ConversationLike,
        *,
        organization: str,
        **options: Any,
    ) -> list[SummaryDraft]:
        """Every draft of a streamed summary, the finished one last (collected: a script
        that wants them as they come uses ``ThreadwiseClient.stream_summary``)."""

        async def drafts() -> list[SummaryDraft]:
            stream = self._client.stream_summary(
                conversations, organization=organization, **options
            )
            return [draft async for draft in stream]

        return self._runner.run(drafts())

    def languages(self, *, source: str | None = None, target: str | None = None) -> Languages:
        return self._runner.run(self._client.languages(source=source, target=target))

    def usage(self, organization: str, **days: str | None) -> Usage:
        return self._runner.run(self._client.usage(organization, **days))

    def glossaries(self, organization: str) -> list[Glossary]:
        return self._runner.run(self._client.glossaries(organization))

    def glossary(self, organization: str, glossary_id: str) -> Glossary:
        return self._runner.run(self._client.glossary(organization, glossary_id))

    def create_glossary(self, organization: str, **glossary: Any) -> Glossary:
        """As ``ThreadwiseClient.create_glossary``."""
        return self._runner.run(self._client.create_glossary(organization, **glossary))

    def delete_glossary(self, organization: str, glossary_id: str) -> None:
        self._runner.run(self._client.delete_glossary(organization, glossary_id))

    def submit(
        self, operation: Superpower, body: dict[str, Any], **options: Any
    ) -> SyncJob[JobResult]:
        """As ``ThreadwiseClient.submit``: a request body as the API takes it, as a job."""
        return SyncJob(
            self._runner, self._runner.run(self._client.submit(operation, body, **options))
        )

    def submit_many(
        self, jobs: Sequence[tuple[Superpower, dict[str, Any]]]
    ) -> list[SyncJob[JobResult] | ThreadwiseError]:
        """As ``ThreadwiseClient.submit_many``."""
        submitted = self._runner.run(self._client.submit_many(jobs))
        return [
            job if isinstance(job, ThreadwiseError) else SyncJob(self._runner, job)
            for job in submitted
        ]

    def submit_summarize(
        self,
        conversations: Sequence[ConversationLike] | ConversationLike,
        *,
        organization: str,
        **options: Any,
    ) -> SyncJob[Summary]:
        """As ``ThreadwiseClient.submit_summarize``: ``wait()`` on the job it returns."""
        submitted = self._client.submit_summarize(
            conversations, organization=organization, **options
        )
        return SyncJob(self._runner, self._runner.run(submitted))

    def submit_translate(
        self,
        texts_or_conversations: TextsOrConversations,
        *,
        organization: str,
        targets: str | Sequence[str],
        **options: Any,
    ) -> SyncJob[list[Translation]]:
        """As ``ThreadwiseClient.submit_translate``: ``wait()`` on the job it returns."""
        submitted = self._client.submit_translate(
            texts_or_conversations, organization=organization, targets=targets, **options
        )
        return SyncJob(self._runner, self._runner.run(submitted))

    def get_job(self, job_id: str) -> Job[JobResult]:
        return self._runner.run(self._client.get_job(job_id))

    def list_jobs(
        self, organization: str | None = None, status: str | None = None, limit: int = 20
    ) -> Iterator[Job[JobResult]]:
        """As ``ThreadwiseClient.list_jobs``: each page read when the iteration reaches it."""
        jobs = self._client.list_jobs(organization, status, limit)

        async def next_job() -> Job[JobResult]:
            return await anext(jobs)

        while True:
            try:
                job = self._runner.run(next_job())
            except StopAsyncIteration:
                return
            yield job

    def cancel_job(self, job_id: str) -> Job[JobResult]:
        return self._runner.run(self._client.cancel_job(job_id))

    async def _call(
        self, action: Superpower, body: dict[str, Any], websocket: bool
    ) -> dict[str, Any]:
        if not websocket:
            return await self._client.call(action, body)
        async with self._client.connect() as socket:
            reply: dict[str, Any] = await socket.request(action, body)
            return reply


class SyncJob(Generic[R]):
    """A submitted job, for scripts: ``JobHandle``'s calls, blocking."""

    def __init__(self, runner: asyncio.Runner, handle: JobHandle[R]) -> None:
        self._runner = runner
        self._handle = handle

    @property
    def job(self) -> Job[R]:
        """The job as last read."""
        return self._handle.job

    @property
    def job_id(self) -> str:
        return self._handle.job_id

    def refresh(self) -> Job[R]:
        return self._runner.run(self._handle.refresh())

    def wait(self, *, poll_interval: float = 1.0, timeout: float | None = None) -> Job[R]:
        """As ``JobHandle.wait``."""
        return self._runner.run(self._handle.wait(poll_interval=poll_interval, timeout=timeout))

    def cancel(self) -> Job[R]:
        return self._runner.run(self._handle.cancel())


async def _build(base_url: str, options: dict[str, Any]) -> ThreadwiseClient:
    # httpx2's client binds to the running loop: build it on the runner's.
    return ThreadwiseClient(base_url, **options)
