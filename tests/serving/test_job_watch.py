"""The job watcher on a JobStore in SQLite: a job's end is told once, at once when it had
already ended, every watched job read in one query, nothing told after a watch is stopped,
and no poller left once nothing is watched."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import until
from threadwise.auth.clients import ClientRegistry
from threadwise.auth.credentials import SecretHasher
from threadwise.db.database import Database
from threadwise.jobs.store import JobRecord, JobStore, NewJob
from threadwise.serving.job_watch import JobWatch

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class CountingStore(JobStore):
    """The store, counting its reads of watched jobs (and failing the first ``failures``)."""

    def __init__(self, database: Database, failures: int = 0) -> None:
        super().__init__(database)
        self.reads: list[set[str]] = []
        self.failures = failures

    def ended_among(self, job_ids: Collection[str]) -> list[JobRecord]:
        self.reads.append(set(job_ids))
        if self.failures:
            self.failures -= 1
            raise ConnectionError("the database went away for a moment")
        return super().ended_among(job_ids)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    built = Database(f"sqlite:///{tmp_path / 'jobs.db'}")
    built.upgrade()
    ClientRegistry(built, SecretHasher()).create("acme", ["org-1"], "job watch tests")
    yield built
    built.close()


def new_job(store: JobStore) -> str:
    record, _ = store.create(
        NewJob(
            tenant="acme",
            organization_id="org-1",
            operation="translate",
            body={},
            request_id=None,
            characters=10,
            parts=1,
        )
    )
    return record.job_id


def finish(store: JobStore, job_id: str) -> None:
    store.finish(job_id, "completed", retention=timedelta(hours=1), result={"state": "completed"})


async def test_a_job_that_ends_is_told_once_with_its_result(database: Database) -> None:
    store = CountingStore(database)
    watcher = JobWatch(store, interval=0.05)
    job_id = new_job(store)
    told: list[JobRecord] = []
    watcher.watch(job_id, told.append)
    await until(lambda: len(store.reads) >= 2)  # polled twice, not ended yet
    assert told == [] and watcher.watched() == 1
    finish(store, job_id)
    await until(lambda: told)
    # Told, the watch is gone: nothing is left to tell it again.
    [job] = told
    assert job.job_id == job_id and job.status == "completed"
    assert job.result == {"state": "completed"}
    assert watcher.watched() == 0


async def test_a_job_already_ended_is_told_at_once(database: Database) -> None:
    store = CountingStore(database)
    watcher = JobWatch(store, interval=30)  # a poll would come far too late
    early = new_job(store)
    watcher.watch(early, lambda _: None)  # the poller is running and waiting
    await until(lambda: store.reads)
    ended = new_job(store)
    finish(store, ended)
    told: list[JobRecord] = []
    watcher.watch(ended, told.append)
    await until(lambda: told, seconds=2)
    assert told[0].job_id == ended


async def test_every_watched_job_is_read_in_one_query(database: Database) -> None:
    store = CountingStore(database)
    watcher = JobWatch(store, interval=0.05)
    job_ids = [new_job(store) for _ in range(3)]
    told: list[str] = []
    for job_id in job_ids:
        watcher.watch(job_id, lambda job: told.append(job.job_id))
    await until(lambda: len(store.reads) >= 3)
    assert store.reads[-1] == set(job_ids)
    for job_id in job_ids:
        finish(store, job_id)
    await until(lambda: len(told) == 3)
    assert sorted(told) == sorted(job_ids)


async def test_a_stopped_watch_is_not_told_and_the_poller_stops(database: Database) -> None:
    store = CountingStore(database)
    watcher = JobWatch(store, interval=0.05)
    job_id = new_job(store)
    told: list[JobRecord] = []
    watch = watcher.watch(job_id, told.append)
    await until(lambda: store.reads)
    watch.stop()
    assert watcher.watched() == 0
    # The poller ends at its next look; with no poller, nothing can read or tell.
    await until(lambda: not _pollers())
    reads = len(store.reads)
    finish(store, job_id)
    await asyncio.sleep(0)
    assert told == [] and len(store.reads) == reads  # nothing watched: nothing read


async def test_a_failed_read_is_tried_again(database: Database) -> None:
    store = CountingStore(database, failures=2)
    watcher = JobWatch(store, interval=0.05)
    job_id = new_job(store)
    finish(store, job_id)
    told: list[JobRecord] = []
    watcher.watch(job_id, told.append)
    await until(lambda: told)
    assert len(store.reads) == 3


async def test_a_failing_listener_does_not_stop_the_others(database: Database) -> None:
    store = CountingStore(database)
    watcher = JobWatch(store, interval=0.05)
    job_id = new_job(store)
    finish(store, job_id)

    def broken(_: JobRecord) -> None:
        raise RuntimeError("a listener's own bug")

    told: list[JobRecord] = []
    watcher.watch(job_id, broken)
    watcher.watch(job_id, told.append)
    await until(lambda: told)
    assert watcher.watched() == 0


def _pollers() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == "job watch"]
