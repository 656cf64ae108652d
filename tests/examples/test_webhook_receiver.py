"""examples/webhook_receiver.py run as a program on loopback: a delivery signed as threadwise
signs it is verified (204, its job printed), a tampered one refused (400)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest

from threadwise.webhooks.signing import new_message_id, new_secret, signed_headers

RECEIVER = Path(__file__).resolve().parents[2] / "examples" / "webhook_receiver.py"
SECRET = new_secret()
JOB_ID = "job_" + "3f" * 16
EVENT = {
    "type": "job.completed",
    "timestamp": "2026-11-27T12:00:03Z",
    "data": {"jobId": JOB_ID, "operation": "translate", "status": "completed"},
}


@pytest.fixture
def receiver() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The receiver's URL, and its process (whose standard output the test reads)."""
    process = subprocess.Popen(
        [sys.executable, str(RECEIVER), "--port", "0"],
        env={**os.environ, "THREADWISE_WEBHOOK_SECRET": SECRET},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # once it listens
        assert first.startswith("listening on "), first
        yield first.removeprefix("listening on ").strip(), process
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def test_a_signed_delivery_is_verified_and_a_tampered_one_refused(
    receiver: tuple[str, subprocess.Popen[str]],
) -> None:
    url, process = receiver
    body = json.dumps(EVENT).encode()
    headers = signed_headers([SECRET], new_message_id(), datetime.now(UTC), body)
    headers["content-type"] = "application/json"

    tampered = body.replace(b"completed", b"cancelled")
    assert httpx2.post(url, content=tampered, headers=headers).status_code == 400
    assert httpx2.post(url, content=body, headers=headers).status_code == 204
    assert process.stdout is not None
    assert process.stdout.readline().strip() == f"job.completed: job {JOB_ID} completed"
    # The same delivery again (a retry after a lost answer): answered, not handled twice.
    assert httpx2.post(url, content=body, headers=headers).status_code == 204
    unsigned = {k: v for k, v in headers.items() if k != "webhook-signature"}
    assert httpx2.post(url, content=body, headers=unsigned).status_code == 400
