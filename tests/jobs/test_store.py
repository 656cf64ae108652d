"""The job store on SQLite and PostgreSQL: jobs stored together, claimed as a batch, ended in
one statement (those already ended left as they were), their webhook attempts kept, and
their idempotency keys looked up together."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from threadwise.db.database import Database
from threadwise.db.tables import Tenant
from threadwise.jobs.store import AttemptRecord, End, IdempotencyConflict, JobStore, NewJob

TENANT = "store-tests"
RETENTION = timedelta(hours=1)


@pytest.fixture(scope="module")
def store(database: Database) -> JobStore:
    with database.session() as session, session.begin():
        session.add(Tenant(name=TENANT, created_at=datetime.now(UTC)))
    return JobStore(database)


def new(batch_id: str | None = None, **fields: object) -> NewJob:
    job = NewJob(TENANT, "org-1", "translate", {"n": 1}, None, 10, 2, batch_id=batch_id)
    return job if not fields else NewJob(**{**job.__dict__, **fields})


def test_jobs_stored_together_run_and_end_as_one_batch(store: JobStore) -> None:
    stored = store.create_many(
        [new("bat_a"), new("bat_a", webhook_url="http://hooks.example/a"), new("bat_a"), new()]
    )
    records = [answer[0] for answer in stored if not isinstance(answer, Exception)]
    assert len(records) == 4 and all(created for _, created in stored)  # type: ignore[misc]
    plain, hooked, cancelled, alone = records
    assert alone.batch_id == alone.job_id and plain.batch_id == "bat_a"

    claimed = store.claim("bat_a")
    assert {job.job_id for job in claimed} == {plain.job_id, hooked.job_id, cancelled.job_id}
    assert all(job.status == "running" and job.runs == 1 for job in claimed)
    assert store.get(alone.job_id).status == "queued"  # type: ignore[union-attr]

    assert store.finish(cancelled.job_id, "cancelled", retention=RETENTION) is not None
    ended = store.finish_many(
        [
            End(plain.job_id, "completed", result={"done": "ü"}),
            End(hooked.job_id, "failed", error=("PROCESSING_FAILED", "It broke.")),
            End(cancelled.job_id, "completed", result={}),
        ],
        retention=RETENTION,
    )
    by_id = {job.job_id: job for job in ended}
    assert set(by_id) == {plain.job_id, hooked.job_id}  # the cancelled one stays so
    done, failed = by_id[plain.job_id], by_id[hooked.job_id]
    assert done.status == "completed" and done.result == {"done": "ü"}
    assert done.progress_done == done.progress_total == 2 and done.webhook_status is None
    assert failed.status == "failed" and failed.progress_done == 0
    assert (failed.error_code, failed.error_message) == ("PROCESSING_FAILED", "It broke.")
    assert failed.webhook_status == "pending" and failed.webhook_message_id
    assert failed.expires_at is not None and failed.reserved_characters == 0
    assert store.get(cancelled.job_id).status == "cancelled"  # type: ignore[union-attr]
    assert store.claim("bat_a") == [] and store.finish_many([], retention=RETENTION) == []

    attempt = {"status": 500, "error": None}
    store.record_attempts(
        [
            AttemptRecord(hooked.job_id, [attempt], "pending", failed.finished_at),
            AttemptRecord(plain.job_id, [attempt, attempt], "failed", None),
        ]
    )
    assert store.get(hooked.job_id).webhook_attempts == [attempt]  # type: ignore[union-attr]
    assert store.get(plain.job_id).webhook_status == "failed"  # type: ignore[union-attr]


def test_a_reused_key_in_a_group_is_answered_for_that_job_alone(store: JobStore) -> None:
    ((earlier, _),) = [store.create(new(idempotency_key="k", fingerprint="fp"))]
    same, other, fresh = store.create_many(
        [
            new("bat_b", idempotency_key="k", fingerprint="fp"),
            new("bat_b", idempotency_key="k", fingerprint="another"),
            new("bat_b"),
        ]
    )
    assert same == (earlier, False)
    assert isinstance(other, IdempotencyConflict)
    assert not isinstance(fresh, Exception) and fresh[1] and fresh[0].batch_id == "bat_b"


def test_idempotency_keys_are_looked_up_together(store: JobStore) -> None:
    (first, _), (second, _) = (
        store.create(new(idempotency_key=key, fingerprint="fp")) for key in ("k1", "k2")
    )
    keys = [(TENANT, "org-1", "k2"), (TENANT, "org-2", "k1"), (TENANT, "org-1", "k1")]
    assert store.find_many(keys) == [second, None, first]
    assert store.find_many([]) == [] and store.find(TENANT, "org-1", "k1") == first
