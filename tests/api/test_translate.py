"""POST /message/translate and GET /languages through the HTTP app, with every real engine."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import minimal_body
from threadwise.services import Services
from threadwise.text.languages import LanguageIdentifier
from threadwise.text.markdown_structure import structure_problems

DONE_WHEN = (
    "Sure! Please send me:\n1. Your **order number**\n2. A photo\n\n"
    "See [our policy](https://example.com/returns?id=7) or run `status --all` 👍"
)


@pytest.fixture(scope="module", autouse=True)
def ready(client: TestClient, services: Services) -> None:
    deadline = time.monotonic() + 120
    while client.get("/readyz").status_code != 200:
        assert services.load_error is None, services.load_error
        assert time.monotonic() < deadline, "the engines did not load within 120 s"
        time.sleep(0.2)


def translate_body(contents: list[str], channel: str | None = "pt-BR", **settings: Any) -> Any:
    data = minimal_body(settings=settings)
    data["session"]["channel"]["language"] = channel
    conversation = data["request"]["scope"]["conversations"][0]
    conversation["messages"] = [
        {"participantId": "c", "timestamp": "2026-03-02T14:05:11.000Z", "content": c}
        for c in contents
    ]
    return data


def translate(client: TestClient, data: Any) -> list[list[dict[str, Any]]]:
    response = client.post("/message/translate", json=data)
    assert response.status_code == 200, response.text
    envelope = response.json()
    assert envelope["actionType"] == "translate" and envelope["state"] == "completed"
    assert "error" not in envelope
    return [r["response"] for r in envelope["message"]["results"]]


def assert_done_when(text: str, language: str) -> None:
    assert structure_problems(DONE_WHEN, text) == [], text
    lines = text.split("\n")
    assert lines[1].startswith("1. ") and re.search(r"\*\*[^*]+\*\*", lines[1]), text
    assert lines[2].startswith("2. ") and lines[3] == "", text
    assert re.search(r"\[[^\]]+\]\(https://example\.com/returns\?id=7\)", lines[4]), text
    assert lines[4].endswith("`status --all` 👍"), text
    assert LanguageIdentifier().detect(text) == language, text


@pytest.mark.model
@pytest.mark.parametrize("mode", ["fast", "quality"])
@pytest.mark.parametrize("channel", ["pt-BR", "es-ES", "de-DE"])
def test_done_when_example_in_both_tiers(client: TestClient, channel: str, mode: str) -> None:
    [[item]] = translate(client, translate_body([DONE_WHEN], channel, translationMode=mode))
    assert_done_when(item["content"], channel[:2])
    assert item["type"] == "translation"
    assert item["sourceLanguage"] == "en" and item["targetLanguage"] == channel
    assert item["conversationId"] == "conv-901" and item["participantId"] == "c"
    assert item["timestamp"] == "2026-03-02T14:05:11.000Z"
    assert item["engine"] and item["engine"] != "none"
    if mode == "fast" and channel != "de-DE":  # no engine but the model knows German
        assert not item["engine"].startswith("llama.cpp"), item["engine"]


def test_one_result_per_target_one_item_per_message_in_order(client: TestClient) -> None:
    contents = [
        "Where is my parcel? It was due yesterday.",
        "Hola, ¿me ayudas con mi pedido?",
        "👍",
        "Thanks, that fixed it.",
    ]
    data = translate_body(
        contents, None, targetLanguages=["es-ES", "pt-BR"], translationMode="fast"
    )
    spanish, portuguese = translate(client, data)
    assert [i["targetLanguage"] for i in spanish] == ["es-ES"] * 4
    assert [i["targetLanguage"] for i in portuguese] == ["pt-BR"] * 4
    # Already in Spanish: unchanged. Nothing to translate: unchanged.
    assert spanish[1]["content"] == contents[1] and spanish[1]["engine"] == "none"
    assert spanish[2]["content"] == "👍" and portuguese[2]["content"] == "👍"
    assert [i.get("sourceLanguage") for i in spanish] == ["en", "es", None, "en"]
    assert spanish[0]["content"] != contents[0] and portuguese[1]["content"] != contents[1]
    assert portuguese[1]["engine"] == "apertium:es-pt_BR"  # es→pt has a direct pair


def test_missing_target_language(client: TestClient) -> None:
    response = client.post("/message/translate", json=translate_body(["Hello"], None))
    assert response.status_code == 422
    envelope = response.json()
    assert envelope["state"] == "error" and envelope["actionType"] == "translate"
    assert envelope["error"]["code"] == "MISSING_TARGET_LANGUAGE"
    item = envelope["message"]["results"][0]["response"][0]
    assert item["error_code"] == "MISSING_TARGET_LANGUAGE"
    assert "session.channel.language" in item["content"]


def test_unsupported_language_lists_the_supported_ones(client: TestClient) -> None:
    response = client.post("/message/translate", json=translate_body(["Hello"], "ja-JP"))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_LANGUAGE"
    assert "session.channel.language" in error["message"]
    assert "en, es, fr, de, pt" in error["message"]


def test_bad_translation_mode_names_the_field(client: TestClient) -> None:
    data = translate_body(["Hello"], translationMode="best")
    response = client.post("/message/translate", json=data)
    assert response.status_code == 422
    assert "request.settings.translationMode" in response.json()["error"]["message"]


def test_languages_lists_both_tiers_with_figures(client: TestClient) -> None:
    listing = client.get("/languages").json()
    directions = {(d["source"], d["target"]): d for d in listing["translation"]}
    assert len(directions) == 20
    en_es = directions[("en", "es")]
    assert en_es["fast"]["engine"] == "apertium"
    assert en_es["fast"]["secondsPerSentence"] < 0.1
    assert en_es["quality"]["chrF"] >= en_es["fast"]["chrF"]
    assert directions[("en", "pt")]["fast"]["engine"] == "bergamot"
    assert directions[("en", "de")]["fast"]["engine"] == "llm"
    assert "en" in listing["summary"]


def test_translate_and_languages_need_a_token(client: TestClient) -> None:
    anonymous = {"Authorization": ""}
    response = client.post("/message/translate", json=translate_body(["Hi"]), headers=anonymous)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "MISSING_TOKEN"
    assert client.get("/languages", headers=anonymous).status_code == 401
