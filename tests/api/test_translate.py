"""POST /message/translate and GET /languages through the HTTP app, with every real engine."""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from tests.api.stack import AuthStack, host, new_org
from tests.conftest import LiveServer, eventually, minimal_body
from threadwise.services import Services
from threadwise.text.languages import LanguageIdentifier
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.measured_languages import MEASURED
from threadwise.text.scripts import script_of

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
    # The code span and the emoji kept, in order; where they stand is the language's own
    # word order ("… `status --all` 👍 durchführen." in German).
    assert re.search(r"`status --all` 👍", lines[4]), text
    assert LanguageIdentifier().detect(text) == language, text


@pytest.mark.model
@pytest.mark.parametrize("mode", ["fast", "quality"])
@pytest.mark.parametrize("channel", ["pt-BR", "es-ES", "de-DE"])
def test_done_when_example_in_both_tiers(client: TestClient, channel: str, mode: str) -> None:
    [[item]] = translate(client, translate_body([DONE_WHEN], channel, translationMode=mode))
    if mode == "fast" and channel == "de-DE":
        # No fast engine knows German, and the fast tier never waits for the model.
        assert item["content"] == DONE_WHEN and item["engine"] == "none"
        assert item["sourceLanguage"] == "en" and item["targetLanguage"] == "de-DE"
        return
    assert_done_when(item["content"], channel[:2])
    assert item["type"] == "translation"
    assert item["sourceLanguage"] == "en" and item["targetLanguage"] == channel
    assert item["conversationId"] == "conv-901" and item["participantId"] == "c"
    assert item["timestamp"] == "2026-03-02T14:05:11.000Z"
    assert item["engine"] and item["engine"] != "none"
    if mode == "fast":
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
    response = client.post("/message/translate", json=translate_body(["Hello"], "tlh"))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_LANGUAGE"
    assert "session.channel.language" in error["message"]
    assert "en, es, fr, de, pt" in error["message"]


def test_a_direction_measured_below_every_label_is_refused_naming_its_figure(
    client: TestClient,
) -> None:
    response = client.post("/message/translate", json=translate_body(["Hello"], "ja-JP"))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_LANGUAGE"
    assert f"measured chrF {MEASURED['ja'].into_chrf} on NTREX" in error["message"]


def test_an_experimental_direction_is_served_where_the_organizations_policy_allows_it(
    client: TestClient, services: Services
) -> None:
    code = next(c for c in MEASURED if MEASURED[c].into == "experimental")
    data = translate_body(["Where is my order? It has not arrived."], code, translationMode="fast")
    refused = client.post("/message/translate", json=data)
    assert refused.status_code == 422
    message = refused.json()["error"]["message"]
    assert f"is experimental (chrF {MEASURED[code].into_chrf}" in message
    policies = services.operations.policies
    assert policies is not None
    policies.set_defaults("default", "org-1", experimental_languages=True)
    try:
        [items] = translate(client, data)
    finally:
        policies.set_defaults("default", "org-1", experimental_languages=False)
    # The fast tier has no engine for it: the message comes back as written, and says so.
    assert [(i["targetLanguage"], i["engine"]) for i in items] == [(code, "none")]


def test_bad_translation_mode_names_the_field(client: TestClient) -> None:
    data = translate_body(["Hello"], translationMode="best")
    response = client.post("/message/translate", json=data)
    assert response.status_code == 422
    assert "request.settings.translationMode" in response.json()["error"]["message"]


def test_bad_formality_names_the_field_and_the_choices(client: TestClient) -> None:
    data = translate_body(["Hello"], formality="polite")
    response = client.post("/message/translate", json=data)
    assert response.status_code == 422
    error = response.json()["error"]
    assert "request.settings.formality" in error["message"] and "'informal'" in error["message"]


def test_formality_in_the_fast_tier_over_rest(client: TestClient) -> None:
    data = translate_body(
        ["Can you check your invoice?"], translationMode="fast", formality="informal"
    )
    [[item]] = translate(client, data)
    assert item["engine"] == "bergamot:en-pt-tiny"  # Brazilian Portuguese: você is informal
    assert "você" in item["content"].casefold() and "senhor" not in item["content"]


def test_languages_lists_both_tiers_with_figures(client: TestClient) -> None:
    listing = client.get("/languages").json()
    directions = {(d["source"], d["target"]): d for d in listing["translation"]}
    languages = [language["code"] for language in listing["languages"]]
    assert len(directions) == len(languages) * (len(languages) - 1)  # every pair
    en_es = directions[("en", "es")]
    assert en_es["quality"]["label"] == "good" and "estimated" not in en_es
    # Between two other languages, unmeasured: the worse label of its legs through English.
    it_nl = directions[("it", "nl")]
    assert (
        it_nl["estimated"]
        and it_nl["quality"]["label"] == directions[("en", "nl")]["quality"]["label"]
    )
    assert en_es["fast"]["engine"] == "apertium"
    assert en_es["fast"]["secondsPerSentence"] < 0.1
    assert en_es["quality"]["chrF"] >= en_es["fast"]["chrF"]
    assert directions[("en", "pt")]["fast"]["engine"] == "bergamot"
    assert directions[("en", "de")]["fast"]["engine"] == "none"  # the fast tier has no German
    assert "en" in listing["summary"]


def test_translate_and_languages_need_a_token(client: TestClient) -> None:
    anonymous = {"Authorization": ""}
    response = client.post("/message/translate", json=translate_body(["Hi"]), headers=anonymous)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "MISSING_TOKEN"
    assert client.get("/languages", headers=anonymous).status_code == 401


def test_target_languages_are_limited_and_listed_once(client: TestClient) -> None:
    eleven = ["es", "es-ES", "es-MX", "fr", "fr-FR", "fr-CA", "pt", "pt-BR", "pt-PT", "de", "en"]
    response = client.post(
        "/message/translate", json=translate_body(["Hi"], targetLanguages=eleven)
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "PAYLOAD_SCHEMA_MISMATCH" and not error["retryable"]
    assert "request.settings.targetLanguages" in error["message"] and "10" in error["message"]
    twice = translate_body(["Hi"], targetLanguages=["es-ES", "fr", "es-ES"])
    response = client.post("/message/translate", json=twice)
    assert response.status_code == 422
    assert "request.settings.targetLanguages[2]" in response.json()["error"]["message"]
    ten = translate_body(["Hi"], targetLanguages=eleven[:10], translationMode="fast")
    assert len(translate(client, ten)) == 10


def test_a_message_ending_in_a_caret_is_translated_at_once(client: TestClient) -> None:
    """It hung Apertium's eng-spa pipeline twice (a retryable 500 after 20 s)."""
    [[item]] = translate(client, translate_body(["Thanks a lot^"], "es", translationMode="fast"))
    assert item["content"].endswith("^") and item["engine"] == "apertium:eng-spa"


@pytest.mark.parametrize("channel", ["es", "pt-BR"])
def test_personal_data_never_reaches_the_fast_engines(client: TestClient, channel: str) -> None:
    """Apertium (es) and Bergamot (pt) translate around the placeholders; the values come
    back byte for byte ("restore"), or the placeholders stay ("mask")."""
    text = "Please ask my husband Daniel Okafor to call (415) 555-2671 or mail dan@example.com."
    values = ["Daniel Okafor", "(415) 555-2671", "dan@example.com"]
    [[restored]] = translate(
        client, translate_body([text], channel, translationMode="fast", redactPersonalData=True)
    )
    assert all(value in restored["content"] for value in values), restored
    [[masked]] = translate(
        client, translate_body([text], channel, translationMode="fast", redactPersonalData="mask")
    )
    assert not any(value in masked["content"] for value in values), masked
    for placeholder in ("[PERSON_1]", "[PHONE_1]", "[EMAIL_1]"):
        assert placeholder in masked["content"], masked


@pytest.mark.parametrize("transport", ["rest", "websocket"])
def test_the_character_limit_counts_each_target_language(stack: AuthStack, transport: str) -> None:
    """30 characters into three languages are 90 characters of work."""
    org = new_org()
    token = stack.fetch_token(stack.register(org, characters_per_minute=100))
    headers = {"Host": host("acme")}

    def body(*targets: str) -> Any:
        data = translate_body(["x" * 30], None, targetLanguages=list(targets))
        data["request"]["context"]["organizationId"] = org
        return data

    def codes(*bodies: Any) -> list[str]:
        if transport == "rest":
            auth = {**headers, "Authorization": f"Bearer {token}"}
            answers = [stack.http.post("/message/translate", json=b, headers=auth) for b in bodies]
            return [a.json()["error"]["code"] for a in answers]
        subprotocols = ["optave-v1", token]
        with stack.http.websocket_connect("/ws", subprotocols=subprotocols, headers=headers) as ws:
            found = []
            for n, data in enumerate(bodies):
                ws.send_json({**data, "actionType": "translate", "correlationId": f"c{n}"})
                found.append(ws.receive_json()["error"]["code"])
            return found

    # Past the gate, the superpower refuses Klingon (the model is never asked); then 30 more
    # characters are 120, over the 100 a minute.
    assert codes(body("es", "fr", "tlh"), body("tlh")) == ["UNSUPPORTED_LANGUAGE", "RATE_LIMITED"]


TEN_TARGETS = ["es", "es-ES", "es-MX", "fr", "fr-FR", "fr-CA", "pt", "pt-BR", "pt-PT", "de"]
LONG_ENGLISH = " ".join(["Please send me the invoice for my last order, thank you."] * 170)


def test_short_fast_translations_keep_answering_beside_hostile_and_oversized_ones(
    live_server: LiveServer, services: Services
) -> None:
    """While messages that hung a pipeline and two requests of ~70 s of fast work each (whose
    clients hang up after a second) are handled, short translations in every direction keep
    answering at once, and the abandoned work stops."""
    hostile = translate_body(["Thanks a lot^"], "es", translationMode="fast")
    oversized = translate_body([LONG_ENGLISH] * 12, None, targetLanguages=TEN_TARGETS)
    oversized["request"]["settings"]["translationMode"] = "fast"
    probes = [
        translate_body(["Where is my parcel?"], "es", translationMode="fast"),
        translate_body(["Where is my parcel?"], "pt-BR", translationMode="fast"),
        translate_body(["¿Dónde está mi paquete?"], "fr", translationMode="fast"),
    ]

    async def scenario() -> list[float]:
        async with httpx2.AsyncClient(base_url=live_server.url, timeout=60) as http:
            grant = {"grant_type": "client_credentials"}
            credentials = (live_server.client_id, live_server.client_secret)
            token = (await http.post("/auth/oauth2/token", data=grant, auth=credentials)).json()
            headers = {"Authorization": f"Bearer {token['access_token']}"}

            async def post(data: Any, timeout: float = 60) -> httpx2.Response:
                return await http.post(
                    "/message/translate", json=data, headers=headers, timeout=timeout
                )

            async def abandon(data: Any) -> None:
                with pytest.raises(httpx2.TimeoutException):
                    await post(data, timeout=1)

            abandoned = [asyncio.ensure_future(abandon(oversized)) for _ in range(2)]
            caret = [asyncio.ensure_future(post(hostile)) for _ in range(2)]
            # The probes start once the hostile work holds the fast queue.
            started = time.monotonic() + 10
            while not services.fast_queue.depth:
                assert time.monotonic() < started, "the hostile requests never reached the queue"
                await asyncio.sleep(0.01)
            seconds = []
            until = time.monotonic() + 4
            while time.monotonic() < until:
                for probe in probes:
                    began = time.monotonic()
                    response = await post(probe)
                    seconds.append(time.monotonic() - began)
                    assert response.status_code == 200, response.text
                    await asyncio.sleep(0.05)
            await asyncio.gather(*abandoned)
            for answer in await asyncio.gather(*caret):
                assert answer.status_code == 200, answer.text
                item = answer.json()["message"]["results"][0]["response"][0]
                assert item["content"].endswith("^")
            return seconds

    seconds = asyncio.run(scenario())
    assert len(seconds) >= 9 and max(seconds) < 2, seconds
    # The abandoned work stopped.
    eventually(lambda: not services.fast_queue.depth, 5, "abandoned fast work kept running")


@pytest.mark.parametrize("channel", ["es-ES", "pt-BR"])
def test_an_organizations_glossary_and_kept_terms_over_rest(
    client: TestClient, channel: str
) -> None:
    created = client.post(
        "/glossaries",
        json={
            "organizationId": "org-1",
            "name": "Support terms",
            "sourceLanguage": "en",
            "targetLanguage": channel,
            "entries": [{"source": "dashboard", "target": "CONSOLA-X"}],
            "default": True,
        },
    )
    assert created.status_code == 201, created.text
    kept = {"organizationId": "org-1", "terms": [{"term": "Optave Cloud", "caseSensitive": True}]}
    assert client.put("/glossaries/do-not-translate", json=kept).status_code == 200
    try:
        text = "Open the dashboard of Optave Cloud and check the **dashboard** again."
        [[item]] = translate(client, translate_body([text], channel, translationMode="fast"))
        assert item["content"].count("CONSOLA-X") == 2, item
        assert "Optave Cloud" in item["content"] and "**CONSOLA-X**" in item["content"]
        # Named, it applies the same; a glossary of another language is refused.
        named = translate_body(
            [text], "fr-FR", translationMode="fast", glossaryId=created.json()["glossaryId"]
        )
        response = client.post("/message/translate", json=named)
        assert response.status_code == 422 and "Support terms" in response.text
    finally:
        client.delete(f"/glossaries/{created.json()['glossaryId']}?organizationId=org-1")
        client.put("/glossaries/do-not-translate", json={"organizationId": "org-1", "terms": []})


def test_bad_text_format_and_source_language_are_422_naming_the_field(client: TestClient) -> None:
    for settings, field, choices in (
        ({"textFormat": "docx"}, "request.settings.textFormat", "'html'"),
        ({"sourceLanguage": "tlh"}, "request.settings.sourceLanguage", "en, es, fr, de, pt"),
    ):
        response = client.post("/message/translate", json=translate_body(["Hello"], **settings))
        assert response.status_code == 422, settings
        error = response.json()["error"]
        assert field in error["message"] and choices in error["message"], error


def test_html_from_a_given_source_language_over_rest(client: TestClient) -> None:
    text = (
        '<p>Your order <a href="https://example.com/o?id=7&amp;x=1">has shipped</a>.<br>Thanks!</p>'
    )
    data = translate_body(
        [text],
        translationMode="fast",
        textFormat="html",
        sourceLanguage="en",
        translationContext="A shop tells a customer about a parcel.",
    )
    [[item]] = translate(client, data)
    assert item["sourceLanguage"] == "en" and item["content"] != text
    assert item["content"].startswith("<p>") and item["content"].endswith("</p>")
    assert '<a href="https://example.com/o?id=7&amp;x=1">' in item["content"]
    assert "<br>" in item["content"]


# One message a script the added languages bring, each into English by the model.
SCRIPTS = {
    "ru": "Здравствуйте, мой заказ 4471 до сих пор не пришёл.",
    "el": "Γεια σας, η παραγγελία μου 4471 δεν έχει φτάσει ακόμα.",
    "ar": "مرحبا، طلبي رقم 4471 لم يصل بعد.",
    "he": "שלום, ההזמנה שלי 4471 עדיין לא הגיעה.",
    "zh": "你好，我的订单4471还没有到。",  # noqa: RUF001
    "ja": "こんにちは、注文4471がまだ届いていません。",
    "ko": "안녕하세요, 제 주문 4471이 아직 도착하지 않았습니다.",
}


def main_script(text: str) -> str | None:
    return Counter(script_of(c) for c in text if c.isalpha()).most_common(1)[0][0]


def test_each_added_script_is_read_and_translated_into_english(client: TestClient) -> None:
    [items] = translate(client, translate_body(list(SCRIPTS.values()), "en-US"))
    identifier = LanguageIdentifier()
    for code, item in zip(SCRIPTS, items, strict=True):
        assert item["sourceLanguage"] == code, item
        assert item["engine"].startswith("llama.cpp"), item
        assert identifier.detect(item["content"]) == "en", item
        assert "4471" in item["content"], item


def test_english_into_cyrillic_and_into_chinese_where_experimental_directions_are_allowed(
    client: TestClient, services: Services
) -> None:
    data = translate_body(["Your order 4471 has shipped."], None, targetLanguages=["ru", "zh-CN"])
    refused = client.post("/message/translate", json=data)
    assert refused.status_code == 422 and "targetLanguages[1]" in refused.json()["error"]["message"]
    policies = services.operations.policies
    assert policies is not None
    policies.set_defaults("default", "org-1", experimental_languages=True)
    try:
        russian, chinese = translate(client, data)
    finally:
        policies.set_defaults("default", "org-1", experimental_languages=False)
    assert main_script(russian[0]["content"]) == "Cyrillic"
    assert main_script(chinese[0]["content"]) == "Han"
    assert all("4471" in item[0]["content"] for item in (russian, chinese))


@pytest.mark.parametrize(
    ("source", "target", "text", "pair"),
    [
        ("en", "ca", "Your order has shipped.", "eng-cat"),
        ("en", "gl", "Your order has shipped.", "en-gl"),
        ("it", "en", "Il tuo ordine è stato spedito ieri.", "ita-spa"),
        ("ro", "en", "Comanda dumneavoastră a fost expediată ieri.", "ro-es"),
    ],
)
def test_the_added_apertium_pairs_answer_in_the_fast_tier(
    client: TestClient, source: str, target: str, text: str, pair: str
) -> None:
    data = translate_body([text], target, translationMode="fast", sourceLanguage=source)
    [[item]] = translate(client, data)
    assert item["engine"].startswith("apertium:") and pair in item["engine"], item
    assert item["content"] != text and LanguageIdentifier().detect(item["content"]) == target
