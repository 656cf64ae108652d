"""``/jobs`` on a live server: submit, poll, the result as the synchronous call gives it, signed
webhooks verified by the ``standardwebhooks`` library on a loopback receiver (retried after a
500 and a timeout), SSRF refusals, idempotency keys, pagination, cancellation, the quota, and
one organization's jobs out of another's sight. Fast tier only: no model."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from standardwebhooks import Webhook

from tests.api.stack import auth_stack, host, new_org
from tests.conftest import eventually, minimal_body, serving
from tests.webhooks.conftest import Receiver, served
from threadwise.protocol.jobs import Job, JobBatchAnswer, JobEvent
from threadwise.services import Services
from threadwise.webhooks.secret_store import WebhookSecretStore

TENANT = "acme"


@dataclass
class Live:
    url: str
    services: Services
    organization: str
    token: str
    other_token: str  # a client of another organization
    secret: str  # the organization's webhook signing secret
    receiver: Receiver

    def post(self, path: str, body: Any, token: str | None = None, **headers: str) -> Any:
        return httpx2.post(
            f"{self.url}{path}", json=body, headers=self.headers(token) | headers, timeout=60
        )

    def get(self, path: str, token: str | None = None, **params: Any) -> Any:
        return httpx2.get(
            f"{self.url}{path}", params=params, headers=self.headers(token), timeout=60
        )

    def delete(self, path: str, token: str | None = None) -> Any:
        return httpx2.delete(f"{self.url}{path}", headers=self.headers(token), timeout=60)

    def headers(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.token}", "Host": host(TENANT)}

    def ended(self, job_id: str, seconds: float = 60) -> dict[str, Any]:
        """The job once it has ended."""
        job: dict[str, Any] = {}

        def ended() -> bool:
            nonlocal job
            answer = self.get(f"/jobs/{job_id}")
            assert answer.status_code == 200, answer.text
            job = answer.json()
            return job["status"] in ("completed", "failed", "cancelled")

        eventually(ended, seconds, f"job {job_id} did not end within {seconds} s")
        return job


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    data_dir: Path = tmp_path_factory.mktemp("jobs")
    with (
        served() as receiver,
        auth_stack(
            data_dir, webhook_allowed_hosts=f"127.0.0.1:{receiver.port}", webhook_timeout_seconds=1
        ) as stack,
    ):
        organization = new_org()
        limits: dict[str, Any] = {
            "requests_per_minute": 100_000,
            "characters_per_minute": 100_000_000,
        }
        client = stack.register(organization, **limits)
        other = stack.register(new_org(), **limits)
        secret = WebhookSecretStore(stack.services.auth.database).create(TENANT, organization)
        with serving(stack.services, stack.services.settings) as server:
            yield Live(
                f"http://127.0.0.1:{server.config.port}",
                stack.services,
                organization,
                stack.fetch_token(client),
                stack.fetch_token(other),
                secret.secret,
                receiver,
            )


def translate_body(organization: str, conversations: int = 2, **settings: Any) -> dict[str, Any]:
    body = minimal_body(
        context={"organizationId": organization},
        settings={"targetLanguages": ["es-ES", "fr-FR"], "translationMode": "fast", **settings},
    )
    first = body["request"]["scope"]["conversations"][0]
    body["request"]["scope"]["conversations"] = [
        {**first, "conversationId": f"conv-{n}"} for n in range(conversations)
    ]
    body["request"]["scope"]["conversations"][0]["messages"][0]["timestamp"] = (
        "2026-03-02T14:05:11.000Z"
    )
    return body


def test_a_translation_job_completes_with_the_synchronous_answer(live: Live) -> None:
    body = translate_body(live.organization, conversations=3)
    submitted = live.post("/jobs/translate", body)
    assert submitted.status_code == 202, submitted.text
    job = submitted.json()
    Job.model_validate(job)
    assert submitted.headers["Operation-Location"] == f"/jobs/{job['jobId']}"
    assert job["status"] in ("queued", "running") and job["progress"]["total"] == 3
    ended = live.ended(job["jobId"])
    Job.model_validate(ended)
    assert ended["status"] == "completed" and ended["progress"] == {"done": 3, "total": 3}
    assert ended["expiresAt"] > ended["finishedAt"] >= ended["startedAt"] >= ended["createdAt"]
    synchronous = live.post("/message/translate", body)
    assert synchronous.status_code == 200, synchronous.text
    envelope = ended["result"]
    assert envelope["actionType"] == "translate" and envelope["state"] == "completed"
    # The same results, items and order: one result per target, one item per message of
    # every conversation; and the timestamp echoed as it was written.
    assert envelope["message"] == synchronous.json()["message"]
    spanish = envelope["message"]["results"][0]["response"]
    assert len(spanish) == 6 and spanish[0]["timestamp"] == "2026-03-02T14:05:11.000Z"


def test_the_webhook_is_signed_and_verified_by_the_standard_library(live: Live) -> None:
    body = translate_body(live.organization, conversations=1)
    body["webhook"] = {"url": live.receiver.url("/hook-ok")}
    job = live.post("/jobs/translate", body).json()
    assert job["webhook"] == {"url": body["webhook"]["url"], "status": "waiting", "attempts": []}
    eventually(lambda: bool(_received(live, "/hook-ok")), 60, "no webhook came")
    [(_, headers, sent)] = _received(live, "/hook-ok")
    event = Webhook(live.secret).verify(sent, {k.lower(): v for k, v in headers.items()})
    JobEvent.model_validate(event)
    assert event["type"] == "job.completed" and event["data"]["jobId"] == job["jobId"]
    assert event["data"]["result"]["message"]["results"]
    with pytest.raises(Exception, match=r"(?i)signature"):
        Webhook(live.secret).verify(sent.replace(b"completed", b"failed"), headers)
    eventually(
        lambda: live.get(f"/jobs/{job['jobId']}").json()["webhook"]["status"] == "delivered",
        30,
        "the delivery was not recorded",
    )
    [attempt] = live.get(f"/jobs/{job['jobId']}").json()["webhook"]["attempts"]
    assert attempt["status"] == 204 and attempt["error"] is None


@pytest.mark.parametrize(
    ("path", "first"), [("/first/status/500", 500), ("/first/slow", None)], ids=["500", "timeout"]
)
def test_a_failed_delivery_is_retried_and_each_attempt_recorded(
    live: Live, path: str, first: int | None
) -> None:
    body = translate_body(live.organization, conversations=1)
    body["webhook"] = {"url": live.receiver.url(path)}
    job_id = live.post("/jobs/translate", body).json()["jobId"]
    # The second attempt comes 5 s after the first (the Standard Webhooks schedule).
    eventually(
        lambda: live.get(f"/jobs/{job_id}").json()["webhook"]["status"] == "delivered",
        60,
        "the webhook was not delivered on its second attempt",
    )
    webhook = live.get(f"/jobs/{job_id}").json()["webhook"]
    failed, delivered = webhook["attempts"]
    assert failed["status"] == first and failed["error"]
    assert delivered["status"] == 204 and delivered["error"] is None
    assert delivered["startedAt"] > failed["startedAt"]
    sent = [headers["webhook-id"] for p, headers, _ in live.receiver.received if p == path]
    assert len(sent) == 2 and sent[0] == sent[1]  # one event: receivers drop the repeat


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost:9/",
        "http://10.0.0.7/hook",
        "http://[::1]/hook",
        "ftp://example.com/hook",
        "https://user:pass@example.com/hook",
    ],
)
def test_a_webhook_to_an_internal_address_is_refused_at_submission(live: Live, url: str) -> None:
    body = translate_body(live.organization, conversations=1)
    body["webhook"] = {"url": url}
    refused = live.post("/jobs/translate", body)
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert error["code"] == "PAYLOAD_SCHEMA_MISMATCH" and "webhook" in error["message"]


def test_bad_job_bodies_are_clear_errors(live: Live) -> None:
    body = translate_body(live.organization, conversations=1)
    for webhook in ("https://example.com", {"uri": "x"}, {"url": 7}):
        refused = live.post("/jobs/translate", body | {"webhook": webhook})
        assert refused.status_code == 422 and "webhook" in refused.json()["error"]["message"]
    # Refused at submission, as the synchronous call refuses it: not a job that fails later.
    klingon = live.post(
        "/jobs/translate", translate_body(live.organization, targetLanguages=["tlh"])
    )
    assert klingon.status_code == 422, klingon.text
    assert klingon.json()["error"]["code"] == "UNSUPPORTED_LANGUAGE"
    anonymous = httpx2.post(f"{live.url}/jobs/translate", json=body, timeout=30)
    assert anonymous.status_code == 401


def test_an_idempotency_key_returns_the_same_job(live: Live) -> None:
    body = translate_body(live.organization, conversations=1)
    key = f"key-{time.monotonic_ns()}"
    first = live.post("/jobs/translate", body, **{"Idempotency-Key": key})
    again = live.post("/jobs/translate", body, **{"Idempotency-Key": key})
    assert first.status_code == again.status_code == 202
    assert first.json()["jobId"] == again.json()["jobId"]
    other = translate_body(live.organization, conversations=2)
    reused = live.post("/jobs/translate", other, **{"Idempotency-Key": key})
    assert reused.status_code == 422 and reused.json()["error"]["code"] == "IDEMPOTENCY_KEY_REUSED"


def test_a_batch_submits_each_job_and_refuses_only_the_bad_ones(live: Live) -> None:
    good = translate_body(live.organization, conversations=1)
    hooked = good | {"webhook": {"url": live.receiver.url("/hook-batch")}}
    other_org = translate_body("not-ours", conversations=1)
    key = f"batch-{time.monotonic_ns()}"
    batch = {
        "jobs": [
            {"operation": "translate", "idempotencyKey": key, "body": good},
            {"operation": "translate", "body": hooked},
            {"operation": "summarise", "body": good},
            {"operation": "translate", "body": other_org},
            {
                "operation": "translate",
                "body": translate_body(live.organization, 1, targetLanguages=["tlh"]),
            },
            {"operation": "translate", "body": {"request": {}}},
            "not an object",
        ]
    }
    answer = live.post("/jobs/batch", batch)
    assert answer.status_code == 200, answer.text
    items = answer.json()["jobs"]
    JobBatchAnswer.model_validate(answer.json())
    assert [item["status"] for item in items] == [202, 202, 422, 403, 422, 422, 422]
    codes = [item["error"]["error"]["code"] for item in items[2:]]
    assert codes == [
        "PAYLOAD_SCHEMA_MISMATCH",
        "FORBIDDEN_ORGANIZATION",
        "UNSUPPORTED_LANGUAGE",
        "REQUIRED_FIELDS_MISSING",
        "PAYLOAD_SCHEMA_MISMATCH",
    ]
    for index, item in enumerate(items[2:], start=2):
        assert item["error"]["error"]["message"].startswith(f"jobs[{index}]: ")
    first, hooked_job = items[0]["job"], items[1]["job"]
    assert live.ended(first["jobId"])["status"] == "completed"
    assert live.ended(hooked_job["jobId"])["status"] == "completed"
    eventually(lambda: bool(_received(live, "/hook-batch")), 30, "the batch's webhook never came")
    # Sent again (its answer lost, say): the keyed job is the one made before.
    again = live.post("/jobs/batch", {"jobs": batch["jobs"][:1]}).json()["jobs"]
    assert again[0]["status"] == 202 and again[0]["job"]["jobId"] == first["jobId"]


def test_a_batch_as_a_whole_is_refused_only_for_its_shape(live: Live) -> None:
    one = {"operation": "translate", "body": translate_body(live.organization, 1)}
    for body, status in (
        ({"jobs": []}, 422),
        ({"jobs": [one] * 101}, 422),
        ({"job": [one]}, 422),
        ([one], 422),
    ):
        refused = live.post("/jobs/batch", body)
        assert refused.status_code == status, refused.text
        assert "jobs" in refused.json()["error"]["message"]
    anonymous = httpx2.post(f"{live.url}/jobs/batch", json={"jobs": [one]}, timeout=30)
    assert anonymous.status_code == 401


def test_jobs_are_listed_newest_first_a_page_at_a_time(live: Live) -> None:
    organization = new_org()
    stack_client = live.services.auth.clients.create(TENANT, [organization], "lister")
    token = _token(live, stack_client)
    made = [
        live.post("/jobs/translate", translate_body(organization, 1), token).json()["jobId"]
        for _ in range(3)
    ]
    first = live.get("/jobs", token, limit=2).json()
    assert [j["jobId"] for j in first["jobs"]] == made[::-1][:2] and first["nextCursor"]
    assert all("result" not in job for job in first["jobs"])
    second = live.get("/jobs", token, limit=2, cursor=first["nextCursor"]).json()
    assert [j["jobId"] for j in second["jobs"]] == made[:1] and second["nextCursor"] is None
    bad = live.get("/jobs", token, cursor="not-a-cursor")
    assert bad.status_code == 422 and "cursor" in bad.json()["error"]["message"]
    forbidden = live.get("/jobs", token, organizationId=live.organization)
    assert forbidden.status_code == 403


def test_another_organizations_client_sees_none_of_its_jobs(live: Live) -> None:
    job_id = live.post("/jobs/translate", translate_body(live.organization, 1)).json()["jobId"]
    for answer in (
        live.get(f"/jobs/{job_id}", live.other_token),
        live.delete(f"/jobs/{job_id}", live.other_token),
    ):
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "NOT_FOUND"
    listed = live.get("/jobs", live.other_token).json()
    assert job_id not in {job["jobId"] for job in listed["jobs"]}
    assert live.get(f"/jobs/{job_id}").status_code == 200


def test_cancelling_an_ended_job_answers_it_as_it_is(live: Live) -> None:
    job_id = live.post("/jobs/translate", translate_body(live.organization, 1)).json()["jobId"]
    live.ended(job_id)
    answer = live.delete(f"/jobs/{job_id}")
    assert answer.status_code == 200 and answer.json()["status"] == "completed"


def test_the_monthly_quota_is_checked_at_submission(live: Live) -> None:
    organization = new_org()
    client = live.services.auth.clients.create(TENANT, [organization], "quota")
    token = _token(live, client)
    body = translate_body(organization, 1)
    characters = 2 * sum(  # two target languages
        len(m["content"]) for m in body["request"]["scope"]["conversations"][0]["messages"]
    )
    live.services.policies.set_defaults(TENANT, organization, monthly_characters=characters + 5)
    assert live.post("/jobs/translate", body, token).status_code == 202
    refused = live.post("/jobs/translate", body, token)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "QUOTA_EXCEEDED"


def test_queue_depth_is_a_metric(live: Live) -> None:
    text = httpx2.get(f"{live.url}/metrics", timeout=30).text
    assert "threadwise_jobs_queued " in text and "threadwise_jobs_oldest_queued_seconds" in text
    assert 'threadwise_jobs_ended_total{operation="translate",status="completed"}' in text


def _received(live: Live, path: str) -> list[tuple[str, dict[str, str], bytes]]:
    return [entry for entry in live.receiver.received if entry[0] == path]


def _token(live: Live, registered: Any) -> str:
    answer = httpx2.post(
        f"{live.url}/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(registered.client.client_id, registered.client_secret),
        headers={"Host": host(TENANT)},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["access_token"]
    return token


def test_the_documented_shapes_match(live: Live) -> None:
    document = httpx2.get(f"{live.url}/openapi.json", timeout=30).json()
    submit = document["paths"]["/jobs/translate"]["post"]
    assert "202" in submit["responses"] and "Operation-Location" in json.dumps(submit)
    assert "callbacks" in submit
    batch = document["paths"]["/jobs/batch"]["post"]
    assert batch["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/JobBatch"
    )
