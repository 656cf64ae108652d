"""Faults in the real engines: a pipeline killed mid-request, an exception inside the model, a
model past its deadline. The request gets its error envelope, the engine is restored, and the
next request succeeds."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.test_serving import fast_body
from tests.conftest import DATA, eventually, minimal_body, wait_until_ready
from threadwise.deadlines import DeadlinePolicy
from threadwise.services import Services

pytestmark = pytest.mark.usefixtures("ready")


@pytest.fixture(scope="module")
def ready(client: TestClient, services: Services) -> None:
    wait_until_ready(services, 120)


def error_of(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    envelope = response.json()
    assert envelope["state"] == "error" and envelope["error"]["code"] == code
    item = envelope["message"]["results"][0]["response"][0]
    assert item["error_code"] == code
    message: str = envelope["error"]["message"]
    return message


def test_an_apertium_pipeline_killed_mid_request(client: TestClient, services: Services) -> None:
    apertium: Any = services.machine_translators["apertium"]
    pipeline = apertium._pipeline(apertium._mode_chain("en", "es", None)[0])
    # Long enough that the pipeline is still working when it is killed (twice: once restarted,
    # it is tried again).
    body = fast_body()
    paragraph = " ".join(["The customer sent the wrong parcel back to the warehouse."] * 40)
    body["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c", "content": f"{paragraph} ({n})"} for n in range(40)
    ]
    killed: list[int] = []
    done = threading.Event()

    def killer() -> None:
        while not done.is_set():
            for process in list(pipeline._processes):
                if process.poll() is None:
                    process.kill()
                    killed.append(process.pid)
            time.sleep(0.01)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        response = client.post("/message/translate", json=body)
    finally:
        done.set()
        thread.join()
    assert killed
    message = error_of(response, 500, "PROCESSING_FAILED")
    assert "apertium" in message
    # The pipeline is started again on the next use.
    again = client.post("/message/translate", json=fast_body("The house is red."))
    assert again.status_code == 200, again.text
    assert again.json()["message"]["results"][0]["response"][0]["content"] == "La casa es roja."


def translate_into_german(client: TestClient, text: str) -> Any:
    body = minimal_body(settings={"overrideOutputLanguage": "de"})
    body["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c", "content": text}
    ]
    return client.post("/message/translate", json=body)


@pytest.mark.model
def test_an_exception_inside_the_model(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm: Any = services.engine._llm  # type: ignore[attr-defined]

    def decode_failed(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("llama_decode returned -3")

    with monkeypatch.context() as patch:
        patch.setattr(llm, "create_completion", decode_failed)
        message = error_of(
            translate_into_german(client, "Where is my parcel?"), 500, "PROCESSING_FAILED"
        )
    assert "language model failed" in message and "llama_decode" in message
    again = translate_into_german(client, "Thank you for your help.")
    assert again.status_code == 200, again.text
    assert again.json()["message"]["results"][0]["response"][0]["engine"].startswith("llama.cpp")


@pytest.mark.model
def test_a_model_past_its_deadline(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = (DATA.parent.parent / "bench" / "data" / "support_chats.jsonl").read_text()
    chats = [json.loads(line)["body"] for line in lines.splitlines()]
    long_chat = next(
        c for c in chats if len(c["request"]["scope"]["conversations"][0]["messages"]) > 40
    )
    long_chat["request"]["context"]["organizationId"] = "org-1"
    with monkeypatch.context() as patch:
        # The prompt alone (~2,000 tokens) takes longer than this.
        patch.setattr(services.summarize, "deadlines", DeadlinePolicy(1, 0, 1, fixed=1.0))
        message = error_of(
            client.post("/message/summarize", json=long_chat), 504, "REQUEST_TIMEOUT"
        )
    assert "deadline" in message
    # Stopped at a deadline check within the prompt, not after all of it; the answer may leave
    # before the engine reaches that check (one prompt chunk).
    eventually(lambda: services.llm_queue.depth == 0, 10, "the model did not stop")
    again = translate_into_german(client, "The parcel arrived today.")
    assert again.status_code == 200, again.text
