"""Jobs on two replicas sharing PostgreSQL's queue: each job run by one of them, once; and a job
whose replica is killed with ``kill -9`` mid-job taken up by the other, which goes on from the
last finished part (each conversation translated once in the result)."""

from __future__ import annotations

import signal
from typing import Any

import httpx2

from scripts.cluster import Cluster, Replica
from tests.cluster.conftest import METRICS_TOKEN
from tests.conftest import eventually, minimal_body

ENDED = "threadwise_jobs_ended_total"


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _body(organization: str, conversations: int, mode: str) -> dict[str, Any]:
    body = minimal_body(
        context={"organizationId": organization},
        settings={"targetLanguages": ["es-ES"], "translationMode": mode},
    )
    first = body["request"]["scope"]["conversations"][0]
    body["request"]["scope"]["conversations"] = [
        {
            **first,
            "conversationId": f"conv-{n}",
            "messages": [
                {"participantId": "c", "content": f"My parcel number {n} is late again."},
                {"participantId": "a", "content": f"I am sorry: parcel {n} leaves today."},
            ],
        }
        for n in range(conversations)
    ]
    return body


def _ended_count(replica: Replica) -> float:
    text = httpx2.get(
        f"{replica.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
    ).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(ENDED + "{") and 'status="completed"' in line
    )


def _job(url: str, token: str, job_id: str) -> dict[str, Any]:
    answer = httpx2.get(f"{url}/jobs/{job_id}", headers=_headers(token), timeout=30)
    assert answer.status_code == 200, answer.text
    job: dict[str, Any] = answer.json()
    return job


def test_two_replicas_share_the_queue_each_job_ended_once(whole: Cluster) -> None:
    client = whole.create_client("org-jobs-shared")
    token = whole.token(client)
    before = sum(_ended_count(r) for r in whole.replicas)
    submitted = []
    for number in range(30):
        replica = whole.replicas[number % 2]
        answer = httpx2.post(
            f"{replica.url}/jobs/translate",
            json=_body(client.organization, 2, "fast"),
            headers=_headers(token),
            timeout=30,
        )
        assert answer.status_code == 202, answer.text
        submitted.append(answer.json()["jobId"])

    def all_completed() -> bool:
        states = {_job(whole.url, token, j)["status"] for j in submitted}
        assert states <= {"queued", "running", "completed"}, states
        return states == {"completed"}

    eventually(all_completed, 120, "the jobs did not all complete")

    # Each job ended once, on one replica or the other (either may have run it), as each
    # replica's metrics show once its worker has written them (every second).
    def ended() -> float:
        return sum(_ended_count(r) for r in whole.replicas) - before

    eventually(lambda: ended() >= len(submitted), 30, "the workers' metrics lag behind")
    assert ended() == len(submitted)
    for job_id in submitted[:3]:  # any replica answers for any job
        job = _job(whole.replicas[1].url, token, job_id)
        assert len(job["result"]["message"]["results"][0]["response"]) == 4


def test_a_job_whose_replica_is_killed_is_finished_once_by_the_other(whole: Cluster) -> None:
    client = whole.create_client("org-jobs-killed")
    token = whole.token(client)
    doomed, survivor = whole.replicas
    # Only the doomed replica takes the job: the other is paused until it has.
    survivor.signal(signal.SIGSTOP, whole=True)
    try:
        answer = httpx2.post(
            f"{doomed.url}/jobs/translate",
            json=_body(client.organization, 4, "quality"),  # the model: seconds a part
            headers=_headers(token),
            timeout=30,
        )
        assert answer.status_code == 202, answer.text
        job_id = answer.json()["jobId"]
        eventually(
            lambda: _job(doomed.url, token, job_id)["progress"]["done"] >= 1,
            300,
            "the job never finished its first part",
        )
    finally:
        survivor.signal(signal.SIGCONT, whole=True)
    done_at_kill = _job(doomed.url, token, job_id)["progress"]["done"]
    doomed.signal(signal.SIGKILL, whole=True)
    assert doomed.wait(10) == -signal.SIGKILL
    # Taken up once its worker has been silent THREADWISE_JOBS_STALLED_SECONDS.
    eventually(
        lambda: _job(survivor.url, token, job_id)["status"] == "completed",
        600,
        "the other replica did not finish the job",
    )
    job = _job(survivor.url, token, job_id)
    assert job["progress"] == {"done": 4, "total": 4} and done_at_kill < 4
    items = job["result"]["message"]["results"][0]["response"]
    # Every conversation's two messages once, in order: no part lost or done twice.
    assert [i.get("conversationId") for i in items] == [
        f"conv-{n}" for n in range(4) for _ in range(2)
    ], items
