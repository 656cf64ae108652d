"""The LibreTranslate-compatible API on a live server: ``libretranslatepy`` (PyPI) as its users
call it, and the request Mastodon sends (mastodon/mastodon,
``app/lib/translation_service/libre_translate.rb``: a JSON body with ``q`` a list of HTML
texts, ``source`` ``auto``, ``format`` ``html`` and ``api_key``; ``GET /languages`` read for each
language's ``targets``). Fast tier only: no model."""

from __future__ import annotations

import gc
import urllib.error
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx2
import pytest
from libretranslatepy import LibreTranslateAPI  # type: ignore[import-untyped]

from tests.api.stack import auth_stack, new_org
from tests.conftest import serving

# libretranslatepy never closes its responses: their sockets are collected here, in the test
# that used them, and the warning about each is expected.
LEAKS_SOCKETS = pytest.mark.filterwarnings(
    "ignore::pytest.PytestUnraisableExceptionWarning", "ignore::ResourceWarning"
)


@dataclass(frozen=True)
class Live:
    url: str  # what a LibreTranslate user sets as the endpoint
    key: str
    revoked_key: str


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    data_dir: Path = tmp_path_factory.mktemp("libretranslate")
    with auth_stack(data_dir, base_domain=None) as stack:
        client = stack.register(new_org(), tenant="default").client
        keys = stack.services.auth.api_keys
        revoked = keys.create(client.client_id)
        keys.revoke(revoked.record.key_id)
        key = keys.create(client.client_id, "libretranslate").key
        with serving(stack.services, stack.services.settings) as server:
            yield Live(f"http://127.0.0.1:{server.config.port}/libretranslate", key, revoked.key)


@LEAKS_SOCKETS
def test_libretranslatepy_translates_detects_and_lists(live: Live) -> None:
    api = LibreTranslateAPI(live.url, api_key=live.key)
    text = "Where is my parcel? It was due on Monday."
    translated = api.translate(text, "en", "es", timeout=60)
    assert isinstance(translated, str) and translated.strip() and translated != text
    [detected] = api.detect("Hola, ¿dónde está mi paquete?", timeout=60)
    assert detected["language"] == "es" and 0 < detected["confidence"] <= 100
    languages = {language["code"]: language for language in api.languages(timeout=60)}
    assert "es" in languages["en"]["targets"] and languages["en"]["name"] == "English"
    gc.collect()


@LEAKS_SOCKETS
def test_without_a_live_key_the_answer_is_403(live: Live) -> None:
    for key in (None, live.revoked_key, "not-a-key"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            LibreTranslateAPI(live.url, api_key=key).translate("Hello", "en", "es", timeout=60)
        assert refused.value.code == 403
        refused.value.close()
    gc.collect()


def test_the_request_mastodon_sends(live: Live) -> None:
    texts = ["<p>Thanks a lot for <strong>your help</strong>!</p>", "<p>See you tomorrow.</p>"]
    body = {"q": texts, "source": "auto", "target": "fr", "format": "html", "api_key": live.key}
    answer = httpx2.post(f"{live.url}/translate", json=body, timeout=60)
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert isinstance(result["translatedText"], list) and len(result["translatedText"]) == 2
    assert "<strong>" in result["translatedText"][0]
    assert [d["language"] for d in result["detectedLanguage"]] == ["en", "en"]
    languages = httpx2.get(f"{live.url}/languages", timeout=60).json()
    assert all(isinstance(language["targets"], list) for language in languages)


def test_html_keeps_links_and_line_breaks_inside_a_paragraph(live: Live) -> None:
    link = '<a href="https://example.com/orders?id=7&amp;view=full" class="u-url">your order</a>'
    text = f"<p>Please check {link} today.<br>Thanks for waiting &amp; sorry!</p>"
    body = {"q": text, "source": "en", "target": "es", "format": "html", "api_key": live.key}
    answer = httpx2.post(f"{live.url}/translate", json=body, timeout=60)
    assert answer.status_code == 200, answer.text
    translated = answer.json()["translatedText"]
    assert translated.startswith("<p>") and translated.endswith("</p>")
    assert link.split(">")[0] + ">" in translated and "</a>" in translated
    assert "<br>" in translated and translated != text
    assert "&amp;" in translated.split("<br>")[1] or "&" not in translated.split("<br>")[1]
    assert "detectedLanguage" not in answer.json()  # the source was given


def test_text_is_translated_as_plain_text(live: Live) -> None:
    body = {"q": "Thanks *a lot*, see you tomorrow.", "source": "en", "target": "es"}
    answer = httpx2.post(f"{live.url}/translate", json={**body, "api_key": live.key}, timeout=60)
    assert answer.status_code == 200, answer.text
    assert "\\" not in answer.json()["translatedText"]  # nothing escaped as Markdown


def test_bad_requests_say_what_to_fix(live: Live) -> None:
    for body, expected in (
        ({"source": "en", "target": "es"}, "q"),
        ({"q": "Hi", "source": "en"}, "target"),
        ({"q": "Hi", "source": "en", "target": "tlh"}, "tlh"),
        ({"q": "Hi", "source": "en", "target": "es", "format": "docx"}, "format"),
    ):
        answer = httpx2.post(
            f"{live.url}/translate", json={**body, "api_key": live.key}, timeout=60
        )
        assert answer.status_code == 400, answer.text
        assert expected in answer.json()["error"]
    settings = httpx2.get(f"{live.url}/frontend/settings", timeout=60).json()
    assert settings["keyRequired"] is True and settings["charLimit"] > 0


def test_the_requests_discourse_sends(live: Live) -> None:
    """discourse/discourse-translator, ``services/discourse_translator/libretranslate.rb``:
    ``GET /languages`` without a key, then form-encoded ``POST /detect`` (the post's text,
    tags stripped) and ``POST /translate`` (its cooked HTML, ``source`` the detected language,
    ``format=html``), each with ``api_key`` in the form."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    codes = [language["code"] for language in httpx2.get(f"{live.url}/languages").json()]
    assert "en" in codes and "fr" in codes
    text = "Thanks for the quick reply, the update fixed it."
    detect = httpx2.post(
        f"{live.url}/detect",
        content=urlencode({"q": text, "api_key": live.key}),
        headers=form,
        timeout=60,
    )
    assert detect.status_code == 200, detect.text
    source = detect.json()[0]["language"]
    assert source == "en"
    cooked = f"<p>{text}</p>"
    answer = httpx2.post(
        f"{live.url}/translate",
        content=urlencode(
            {"q": cooked, "source": source, "target": "fr", "format": "html", "api_key": live.key}
        ),
        headers=form,
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    translated = answer.json()["translatedText"]
    assert isinstance(translated, str) and translated.startswith("<p>")
