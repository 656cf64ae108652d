"""The DeepL-compatible API on a live server, called by DeepL's official Python client
(``deepl`` on PyPI) with ``server_url`` pointed at it, as a DeepL user would after switching.
Fast tier (Apertium) unless a test says otherwise: the model's one test is marked ``model``."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import deepl
import httpx2
import pytest

from tests.api.stack import AuthStack, auth_stack, new_org
from tests.conftest import LiveServer, serving
from threadwise.services import Services


@dataclass(frozen=True)
class Live:
    url: str  # what a DeepL user sets as server_url
    key: str
    stack: AuthStack

    def client(self, key: str | None = None) -> closing[deepl.DeepLClient]:
        return closing(deepl.DeepLClient(key or self.key, server_url=self.url))

    def new_key(self, **limits: int) -> tuple[str, str]:
        """A key of a new client of a new organization: (key, organization)."""
        organization = new_org()
        client = self.stack.register(organization, tenant="default", **limits).client
        return self.stack.services.auth.api_keys.create(client.client_id).key, organization


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    data_dir: Path = tmp_path_factory.mktemp("deepl")
    with auth_stack(data_dir, base_domain=None) as stack:
        client = stack.register(new_org(), tenant="default").client
        key = stack.services.auth.api_keys.create(client.client_id, "deepl").key
        with serving(stack.services, stack.services.settings) as server:
            yield Live(f"http://127.0.0.1:{server.config.port}", key, stack)


def test_one_text_and_several(live: Live) -> None:
    with live.client() as translator:
        one = translator.translate_text("Where is my parcel?", target_lang="ES")
        assert isinstance(one, deepl.TextResult)
        assert one.text.strip() and one.text != "Where is my parcel?"
        assert one.detected_source_lang == "EN"
        assert one.billed_characters == len("Where is my parcel?")
        texts = ["Thank you for your help.", "The order was shipped on Monday.", "OK"]
        several = translator.translate_text(texts, source_lang="EN", target_lang="PT-BR")
        assert isinstance(several, list) and len(several) == 3
        assert all(result.text.strip() for result in several)
        assert [result.detected_source_lang for result in several] == ["EN"] * 3
        # DeepL takes blank texts among others: each is its own translation.
        blanks = translator.translate_text(["", "Good night", " "], target_lang="DE")
        assert isinstance(blanks, list)
        assert [b.text for b in blanks][::2] == ["", " "] and blanks[1].text.strip()


def test_the_source_language_is_detected(live: Live) -> None:
    with live.client() as translator:
        result = translator.translate_text(
            "¿Dónde está mi paquete? Lo pedí el lunes.", target_lang="EN-US"
        )
        assert isinstance(result, deepl.TextResult)
        assert result.detected_source_lang == "ES"
        assert re.search(r"[A-Za-z]", result.text) and "paquete" not in result.text


def test_formality(live: Live) -> None:
    with live.client() as translator:
        formal = translator.translate_text(
            "Can you send me your address?", target_lang="ES", formality="more"
        )
        informal = translator.translate_text(
            "Can you send me your address?", target_lang="ES", formality="less"
        )
        assert isinstance(formal, deepl.TextResult) and isinstance(informal, deepl.TextResult)
        assert not re.search(r"\b(tú|tu|te)\b", formal.text, re.IGNORECASE), formal.text
        assert not re.search(r"\b(usted|su)\b", informal.text, re.IGNORECASE), informal.text
        # English has no register: "more" is refused as DeepL refuses it, "prefer_more" is not.
        with pytest.raises(deepl.DeepLException) as refused:
            translator.translate_text("Hola", target_lang="EN-GB", formality="more")
        assert refused.value.http_status_code == 400
        kept = translator.translate_text("Hola", target_lang="EN-GB", formality="prefer_more")
        assert isinstance(kept, deepl.TextResult) and kept.text.strip()


def test_a_glossary_created_through_the_client_is_used(live: Live) -> None:
    with live.client() as translator:
        glossary = translator.create_glossary(
            "Parcels", source_lang="EN", target_lang="ES", entries={"parcel": "bulto"}
        )
        assert glossary.ready and glossary.entry_count == 1
        assert (glossary.source_lang, glossary.target_lang) == ("EN", "ES")
        assert glossary.glossary_id in [g.glossary_id for g in translator.list_glossaries()]
        assert translator.get_glossary(glossary.glossary_id).name == "Parcels"
        assert translator.get_glossary_entries(glossary) == {"parcel": "bulto"}
        result = translator.translate_text(
            "Where is my parcel?", source_lang="EN", target_lang="ES", glossary=glossary
        )
        assert isinstance(result, deepl.TextResult) and "bulto" in result.text.lower()
        translator.delete_glossary(glossary)
        with pytest.raises(deepl.GlossaryNotFoundException):
            translator.get_glossary(glossary.glossary_id)
    # DeepL's rule (which its client checks too): a glossary needs the source language named.
    answer = httpx2.post(
        f"{live.url}/v2/translate",
        data={"text": "Hi", "target_lang": "ES", "glossary_id": glossary.glossary_id},
        headers={"Authorization": f"DeepL-Auth-Key {live.key}"},
    )
    assert answer.status_code == 400 and "source_lang" in answer.json()["message"]


def test_html_tag_handling_keeps_the_markup(live: Live) -> None:
    link = '<a href="https://example.com/x?a=1&amp;b=2">the guide</a>'
    html = f"<p>Thanks a lot for <b>your help</b>! See {link}.</p>"
    with live.client() as translator:
        result = translator.translate_text(html, target_lang="FR", tag_handling="html")
    assert isinstance(result, deepl.TextResult)
    assert result.text.startswith("<p>") and result.text.endswith("</p>")
    assert "<b>" in result.text and "</b>" in result.text
    assert '<a href="https://example.com/x?a=1&amp;b=2">' in result.text
    assert "Thanks" not in result.text and "your help" not in result.text, result.text


def test_languages_and_usage(live: Live) -> None:
    key, _ = live.new_key()
    with live.client(key) as translator:
        sources = {language.code for language in translator.get_source_languages()}
        assert {"EN", "ES", "FR", "DE", "PT"} <= sources
        targets = {language.code: language for language in translator.get_target_languages()}
        assert {"EN-GB", "EN-US", "PT-BR", "PT-PT", "ES", "DE"} <= set(targets)
        assert targets["DE"].supports_formality and not targets["EN-US"].supports_formality
        assert translator.get_usage().character.count == 0
        translator.translate_text("Good morning", target_lang="DE")
        usage = translator.get_usage().character
        assert usage.count == len("Good morning") and usage.limit and usage.limit > 10**9


def test_a_used_up_quota_is_456(live: Live) -> None:
    key, organization = live.new_key()
    live.stack.services.policies.set_defaults("default", organization, monthly_characters=20)
    with live.client(key) as translator:
        with pytest.raises(deepl.QuotaExceededException) as refused:
            translator.translate_text(
                "This text is longer than the quota allows.", target_lang="DE"
            )
        assert refused.value.http_status_code == 456
        assert translator.get_usage().character.limit == 20


def test_a_rate_limit_is_429_and_the_client_retries(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    key, _ = live.new_key(characters_per_minute=600)
    with live.client(key) as translator, caplog.at_level(logging.INFO, logger="deepl"):
        translator.translate_text("a" * 590, target_lang="DE")  # the minute's burst, nearly
        result = translator.translate_text("Good morning, friends", target_lang="DE")
    assert isinstance(result, deepl.TextResult) and result.text.strip()
    assert any("Starting retry" in record.getMessage() for record in caplog.records)


def test_errors_as_deepl_answers_them(live: Live) -> None:
    post = f"{live.url}/v2/translate"
    auth = {"Authorization": f"DeepL-Auth-Key {live.key}"}
    refused = httpx2.post(post, data={"text": "Hi", "target_lang": "DE"})
    assert refused.status_code == 403 and "message" in refused.json()
    wrong = httpx2.post(
        post,
        data={"text": "Hi", "target_lang": "DE"},
        headers={"Authorization": "DeepL-Auth-Key twk_nope"},
    )
    assert wrong.status_code == 403
    for bad in ({"text": "Hi"}, {"text": "Hi", "target_lang": "XX"}, {"target_lang": "DE"}):
        answer = httpx2.post(post, data=bad, headers=auth)
        assert answer.status_code == 400 and answer.json()["message"], bad
    # A form with the text repeated: several texts, as DeepL's form API takes them.
    form = httpx2.post(
        post,
        content="text=Hello&text=Good+night&target_lang=DE",
        headers={**auth, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 200 and len(form.json()["translations"]) == 2
    # The key as the auth_key parameter older clients send.
    old = httpx2.post(post, data={"text": "Hello", "target_lang": "DE", "auth_key": live.key})
    assert old.status_code == 200


@pytest.mark.model
def test_quality_optimized_is_the_model(live_server: LiveServer, services: Services) -> None:
    client = next(c for c in services.auth.clients.list() if c.client_id == live_server.client_id)
    key = services.auth.api_keys.create(client.client_id, "deepl quality").key
    previous = deepl.http_client.min_connection_timeout
    deepl.http_client.min_connection_timeout = 300  # the model takes longer than DeepL's 10 s
    try:
        with closing(deepl.DeepLClient(key, server_url=live_server.url)) as translator:
            result = translator.translate_text(
                "I'll send you the invoice <b>tomorrow</b>.",
                target_lang="DE",
                model_type="quality_optimized",
                tag_handling="html",
                context="A customer asked about a late invoice.",
            )
    finally:
        deepl.http_client.min_connection_timeout = previous
    assert isinstance(result, deepl.TextResult)
    assert result.model_type_used == "quality_optimized"
    assert "<b>" in result.text and "</b>" in result.text and "invoice" not in result.text
