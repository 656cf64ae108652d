"""SIGTERM on a real `threadwise serve`: new work is refused with 503 while the summary in
flight finishes and is answered; then the process exits 0."""

from __future__ import annotations

import json
import shutil
import signal
import threading
from typing import Any

import httpx2
import pytest

from bench.load import ORGANIZATION, Server
from tests.conftest import DATA, eventually

pytestmark = pytest.mark.model


def test_sigterm_drains_then_exits_zero() -> None:
    server = Server(
        {
            "THREADWISE_SHUTDOWN_GRACE_SECONDS": "300",
            "THREADWISE_LOG_FORMAT": "json",
            "THREADWISE_LLM_NICE": "0",
        }
    )
    try:
        token = server.start()
        assert server.process is not None
        body = json.loads((DATA / "support_chat.json").read_text())
        body["request"]["context"]["organizationId"] = ORGANIZATION
        headers = {"Authorization": f"Bearer {token}"}
        answers: list[Any] = []

        def in_flight() -> None:
            with httpx2.Client(base_url=server.url, timeout=600) as http:
                answers.append(http.post("/message/summarize", json=body, headers=headers))

        thread = threading.Thread(target=in_flight)
        thread.start()
        with httpx2.Client(base_url=server.url, timeout=30, headers=headers) as http:
            eventually(
                lambda: 'threadwise_queue_running{queue="llm"} 1.0' in http.get("/metrics").text,
                120,
                "the summary never reached the model",
            )
            server.process.send_signal(signal.SIGTERM)
            eventually(
                lambda: http.get("/readyz").json() == {"status": "draining"},
                5,
                "the server did not start draining",
            )
            refused = http.post("/message/summarize", json=body)
            assert refused.status_code == 503
            assert refused.json()["error"]["code"] == "OVERLOADED"
            assert int(refused.headers["retry-after"]) >= 1
        thread.join(600)
        [answer] = answers
        assert answer.status_code == 200, answer.text
        assert answer.json()["state"] == "completed"
        assert server.process.wait(60) == 0
    finally:
        if server.process is not None and server.process.poll() is None:
            server.process.kill()
            server.process.wait()
        server.log.close()
    log = (server.data_dir / "server.log").read_text()
    shutil.rmtree(server.data_dir, ignore_errors=True)
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert any(line.get("event") == "request" and line["code"] == "OVERLOADED"
               and line["reason"] == "draining" for line in lines)  # fmt: skip
