"""/playground (and /docs, /redoc) in headless Chromium against a live server with the real
engines: sign in, translate in the fast tier, summarize with streamed drafts, cancel, errors
with their codes, the languages table, "copy as" snippets that run, a phone's width. Each test
saves screenshots under its temporary directory and checks they are more than a blank page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser import PHONE, chromium, console_errors, screenshot, wait
from tests.conftest import DATA, LiveServer
from threadwise.services import Services
from threadwise.text.languages import TRANSLATION_LANGUAGES, translation_languages
from threadwise.text.protected import protected_spans

# Long enough for a summary on a busy two-core machine.
MODEL_SECONDS = 600


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    with chromium() as driver:
        yield driver
        assert console_errors(driver) == []


def by_id(driver: webdriver.Chrome, name: str) -> Any:
    return driver.find_element(By.ID, name)


def open_page(driver: webdriver.Chrome, server: LiveServer) -> None:
    driver.get(f"{server.url}/playground")
    wait(driver).until(lambda d: d.execute_script("return document.body.dataset.ready"))


def sign_in(driver: webdriver.Chrome, server: LiveServer) -> None:
    open_page(driver, server)
    by_id(driver, "client-id").send_keys(server.client_id)
    by_id(driver, "client-secret").send_keys(server.client_secret)
    by_id(driver, "sign-in-button").click()
    wait(driver).until(lambda d: "Signed in" in by_id(d, "account-status").text)


def choose_sample(driver: webdriver.Chrome, title_start: str) -> None:
    select = Select(by_id(driver, "sample"))
    for option in select.options:
        if option.text.startswith(title_start):
            select.select_by_value(option.get_attribute("value") or "")
            return
    raise AssertionError(f"no sample {title_start!r}")


def translate_fast(driver: webdriver.Chrome, targets: list[str], others: str = "") -> None:
    """Run a fast-tier translation from the keyboard: arrow to the tab, Ctrl+Enter to run."""
    by_id(driver, "tab-summarize").send_keys(Keys.ARROW_RIGHT)
    assert by_id(driver, "tab-translate").get_attribute("aria-selected") == "true"
    by_id(driver, "other-targets").clear()
    by_id(driver, "other-targets").send_keys(others)
    by_id(driver, "tier-fast").click()
    for box in driver.find_elements(By.CSS_SELECTOR, "input[name=target]"):
        if box.is_selected() != (box.get_attribute("value") in targets):
            box.click()
    by_id(driver, "translate-button").send_keys(Keys.CONTROL, Keys.ENTER)
    wait(driver, 120).until(
        lambda d: by_id(d, "translate-state").text.startswith(("Translated", "Failed"))
    )


def facts(driver: webdriver.Chrome) -> dict[str, str]:
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#call-facts dt")]
    values = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#call-facts dd")]
    return dict(zip(names, values, strict=True))


def test_sign_in_keeps_the_token_in_this_tab_only(
    browser: webdriver.Chrome, live_server: LiveServer, tmp_path: Path
) -> None:
    open_page(browser, live_server)
    by_id(browser, "client-id").send_keys(live_server.client_id)
    by_id(browser, "client-secret").send_keys("tws_wrong")
    by_id(browser, "sign-in-button").click()
    wait(browser).until(lambda d: "invalid_client" in by_id(d, "sign-in-error").text)

    by_id(browser, "client-secret").clear()
    by_id(browser, "client-secret").send_keys(live_server.client_secret)
    by_id(browser, "sign-in-button").click()
    wait(browser).until(lambda d: "Signed in" in by_id(d, "account-status").text)
    assert not by_id(browser, "sign-in").is_displayed()
    assert by_id(browser, "client-secret").get_attribute("value") == ""
    stored = browser.execute_script("return JSON.stringify(sessionStorage)")
    assert live_server.client_secret not in stored and '"token' in stored
    assert browser.execute_script("return localStorage.length") == 0
    token = json.loads(json.loads(stored)["threadwise.playground.session"])["token"]
    assert token not in browser.current_url
    # The organizations are the token's: requests go out for the first of them.
    organizations = [o.text for o in Select(by_id(browser, "organization")).options]
    assert organizations == ["org-1", "org-bench"]
    screenshot(browser, tmp_path / "signed-in.png")

    browser.refresh()
    wait(browser).until(lambda d: d.execute_script("return document.body.dataset.ready"))
    assert "Signed in" in by_id(browser, "account-status").text
    by_id(browser, "sign-out").click()
    assert by_id(browser, "sign-in").is_displayed()
    assert "threadwise.playground.session" not in browser.execute_script(
        "return Object.keys(sessionStorage)"
    )


def test_a_fast_translation_side_by_side(
    browser: webdriver.Chrome, live_server: LiveServer, tmp_path: Path
) -> None:
    sign_in(browser, live_server)
    choose_sample(browser, "Markdown")
    translate_fast(browser, ["es", "pt"])
    assert by_id(browser, "translate-state").text.startswith("Translated into es, pt")
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#translation-output th")]
    assert headers == ["Message", "es", "pt"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#translation-output tbody tr")
    assert len(rows) == 3
    for row in rows:
        cells = row.find_elements(By.TAG_NAME, "td")
        assert cells[0].find_element(By.CSS_SELECTOR, ".badge.language").text == "en"
        engines = [c.find_element(By.CSS_SELECTOR, ".badge.engine").text for c in cells[1:]]
        assert engines[0].startswith("apertium") and engines[1].startswith("bergamot"), engines
        # What no engine saw is highlighted on both sides, the same text.
        marks = [
            sorted(m.text for m in cell.find_elements(By.CSS_SELECTOR, "mark.protected"))
            for cell in cells
        ]
        assert marks[0] and marks[1] == marks[0] and marks[2] == marks[0], marks
    shown = facts(browser)
    assert shown["status"] == "200" and len(shown["X-Correlation-Id"]) >= 16
    sent = json.loads(by_id(browser, "raw-request").text)
    assert sent["request"]["settings"]["translationMode"] == "fast"
    assert sent["request"]["context"]["organizationId"] == "org-1"
    answer = json.loads(by_id(browser, "raw-response").text)
    assert answer["state"] == "completed"
    screenshot(browser, tmp_path / "translate.png")


# Records what the summary area shows each time it changes: drafts, then the final text.
WATCH_SUMMARY = """
window.seen = [];
const output = document.getElementById('summary-output');
new MutationObserver(() => {
  const kind = output.querySelector('.draft') ? 'draft' : 'final';
  if (output.textContent) window.seen.push([kind, output.textContent]);
}).observe(output, {childList: true, subtree: true, characterData: true});
"""


@pytest.mark.model
def test_a_summary_streams_then_one_is_cancelled(
    browser: webdriver.Chrome, live_server: LiveServer, tmp_path: Path
) -> None:
    sign_in(browser, live_server)
    choose_sample(browser, "Support")
    browser.execute_script(WATCH_SUMMARY)
    by_id(browser, "summarize-button").click()
    wait(browser, MODEL_SECONDS).until(
        lambda d: by_id(d, "summary-state").text.startswith(("Final", "Failed"))
    )
    error = by_id(browser, "error-box").text
    assert by_id(browser, "summary-state").text.startswith("Final"), error
    seen = browser.execute_script("return window.seen")
    kinds = [kind for kind, _ in seen]
    assert kinds[0] == "draft" and kinds[-1] == "final" and "final" not in kinds[:-1], kinds
    shown = facts(browser)
    assert int(shown["drafts streamed"]) >= 1 and shown["transport"] == "WebSocket /ws"
    first, final = (int(shown[k].removesuffix(" ms")) for k in ("first draft", "final answer"))
    assert first < final
    # Evidence: a sentence, focused, highlights the messages it cites.
    sentences = browser.find_elements(By.CSS_SELECTOR, "#summary-output .sentence")
    assert sentences
    citing = next(s for s in sentences if s.get_attribute("data-cites"))
    browser.execute_script("arguments[0].focus()", citing)
    highlighted = browser.find_elements(By.CSS_SELECTOR, "#cited-messages li.highlight")
    assert {li.get_attribute("data-key") for li in highlighted} == set(
        (citing.get_attribute("data-cites") or "").split()
    )
    screenshot(browser, tmp_path / "summary.png")

    # Again, cancelled while the model writes its draft.
    browser.execute_script(WATCH_SUMMARY)
    by_id(browser, "summarize-button").click()
    wait(browser, MODEL_SECONDS).until(
        lambda d: by_id(d, "summary-state").text.startswith(("Draft", "Final", "Failed"))
    )
    assert by_id(browser, "summary-state").text.startswith("Draft")
    by_id(browser, "cancel-button").click()
    wait(browser, 60).until(lambda d: by_id(d, "summary-state").text == "Cancelled.")
    assert by_id(browser, "error-code").text == "REQUEST_CANCELLED"
    assert by_id(browser, "summarize-button").is_enabled()
    assert not by_id(browser, "cancel-button").is_enabled()
    screenshot(browser, tmp_path / "cancelled.png")


def test_errors_are_shown_with_their_code(
    browser: webdriver.Chrome, live_server: LiveServer, services: Services, tmp_path: Path
) -> None:
    sign_in(browser, live_server)
    translate_fast(browser, ["es"], others="xx")
    assert by_id(browser, "error-code").text == "UNSUPPORTED_LANGUAGE"
    assert "retryable: no" in by_id(browser, "error-details").text
    assert "HTTP 422" in by_id(browser, "error-details").text
    assert by_id(browser, "error-message").text
    screenshot(browser, tmp_path / "error.png")

    # A body that is not JSON is found before anything is sent.
    sent = by_id(browser, "raw-request").text
    by_id(browser, "tab-json").click()
    by_id(browser, "json").send_keys(Keys.END, "}")
    by_id(browser, "translate-button").click()
    assert "does not parse" in by_id(browser, "editor-error").text
    assert by_id(browser, "raw-request").text == sent
    # A body the page cannot fill in goes as written, and the server says what is wrong.
    set_text(browser, "json", '{"session": {}, "request": "nothing"}')
    by_id(browser, "translate-button").click()
    wait(browser).until(lambda d: by_id(d, "error-code").text != "UNSUPPORTED_LANGUAGE")
    assert by_id(browser, "error-code").text == "PAYLOAD_SCHEMA_MISMATCH"
    assert "request" in by_id(browser, "error-message").text
    choose_sample(browser, "Markdown")  # another sample: the support chat is chosen already

    # A pasted token of a client allowed one request a minute: the second is refused, and
    # the page shows how long to wait.
    limited = services.auth.clients.create("default", ["org-slow"], "slow", requests_per_minute=1)
    answer = httpx2.post(
        f"{live_server.url}/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(limited.client.client_id, limited.client_secret),
    )
    by_id(browser, "sign-out").click()
    by_id(browser, "pasted-token").send_keys(answer.json()["access_token"])
    by_id(browser, "pasted-token").send_keys(Keys.ENTER)
    wait(browser).until(lambda d: limited.client.client_id in by_id(d, "account-status").text)
    by_id(browser, "tab-lines").click()
    by_id(browser, "other-targets").clear()
    for _ in range(2):
        by_id(browser, "translate-button").click()
        wait(browser, 120).until(lambda d: not by_id(d, "translate-state").text.endswith("…"))
    assert by_id(browser, "error-code").text == "RATE_LIMITED"
    details = by_id(browser, "error-details").text
    assert "retryable: yes" in details and "Retry-After:" in details and "HTTP 429" in details


def set_text(driver: webdriver.Chrome, name: str, text: str) -> None:
    driver.execute_script(
        "const area = document.getElementById(arguments[0]); area.value = arguments[1];"
        "area.dispatchEvent(new Event('input'));",
        name,
        text,
    )


def test_the_editor_writes_lines_and_json_both_ways(
    browser: webdriver.Chrome, live_server: LiveServer
) -> None:
    open_page(browser, live_server)
    choose_sample(browser, "Support")
    # An edit in the lines keeps what lines cannot show: ids, timestamps, the session.
    lines = by_id(browser, "lines").get_attribute("value") or ""
    set_text(browser, "lines", lines.replace("cracked screen.", "cracked screen. Really."))
    by_id(browser, "tab-json").click()
    body = json.loads(by_id(browser, "json").get_attribute("value") or "")
    conversation = body["request"]["scope"]["conversations"][0]
    assert conversation["messages"][0]["content"].endswith("cracked screen. Really.")
    assert [m["participantId"] for m in conversation["messages"]] == ["u1", "a1", "u1", "a1", "u1"]
    assert all(m["timestamp"].startswith("2026-03-02") for m in conversation["messages"])
    assert body["session"]["sessionId"] == "playground-support"

    # Messages of several lines, a new speaker, another conversation.
    by_id(browser, "tab-lines").click()
    set_text(
        browser,
        "lines",
        "Ana (customer): My router blinks red.\n  It started today.\n\n  Any idea?\n"
        "Bo (agent): Try `reboot now`\n# conv-2\nAna: Thanks!",
    )
    by_id(browser, "tab-json").click()
    body = json.loads(by_id(browser, "json").get_attribute("value") or "")
    first, second = body["request"]["scope"]["conversations"]
    assert first["messages"][0] == {
        "participantId": "ana",
        "content": "My router blinks red.\nIt started today.\n\nAny idea?",
    }
    assert first["participants"][1] == {"participantId": "bo", "displayName": "Bo", "role": "agent"}
    assert second["conversationId"] == "conv-2" and second["messages"][0]["content"] == "Thanks!"

    # And back: an edit in the JSON shows in the lines, and survives a reload of the page.
    body["request"]["scope"]["conversations"][1]["messages"][0]["content"] = "Thanks a lot!"
    set_text(browser, "json", json.dumps(body))
    by_id(browser, "tab-lines").click()
    expected = (
        "# conv-support\n"
        "Ana (customer): My router blinks red.\n  It started today.\n  \n  Any idea?\n"
        "Bo (agent): Try `reboot now`\n\n# conv-2\nAna: Thanks a lot!"
    )
    assert by_id(browser, "lines").get_attribute("value") == expected
    browser.refresh()
    wait(browser).until(lambda d: d.execute_script("return document.body.dataset.ready"))
    assert by_id(browser, "lines").get_attribute("value") == expected
    # A line that is not a message says what to write.
    set_text(browser, "lines", "hello there")
    by_id(browser, "tab-json").click()
    assert "Line 1: start a message with" in by_id(browser, "editor-error").text


def test_the_languages_table(browser: webdriver.Chrome, live_server: LiveServer) -> None:
    sign_in(browser, live_server)
    by_id(browser, "tab-languages").click()
    served = [code for code in TRANSLATION_LANGUAGES if code != "en"]
    wait(browser).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#languages-table tbody tr")) == len(served)
    )
    rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#languages-table tbody tr")]
    assert [row.split(" ")[0] for row in rows] == served
    assert all("chrF" in row for row in rows)
    assert "Summaries in en" in by_id(browser, "languages-note").text
    # The targets offered are those served to every organization, as the server says.
    targets = {
        box.get_attribute("value")
        for box in browser.find_elements(By.CSS_SELECTOR, "input[name=target]")
    }
    assert targets == set(translation_languages(into=True))
    # The summary languages the server named are offered.
    offered = Select(by_id(browser, "summary-language")).options
    languages = [option.get_attribute("value") for option in offered]
    assert {"", "en", "es", "de"} <= set(languages)


def snippet(driver: webdriver.Chrome, kind: str) -> str:
    driver.find_element(By.CSS_SELECTOR, f"button.copy[data-snippet={kind}]").click()
    wait(driver).until(lambda d: d.find_element(By.ID, "copy-state").text)
    text: str = driver.execute_script("return document.getElementById('snippet').textContent")
    return text


def test_copy_as_snippets_that_run(
    browser: webdriver.Chrome, live_server: LiveServer, tmp_path: Path
) -> None:
    sign_in(browser, live_server)
    choose_sample(browser, "Multilingual")
    translate_fast(browser, ["pt"])
    environment = {
        **os.environ,
        "THREADWISE_CLIENT_ID": live_server.client_id,
        "THREADWISE_CLIENT_SECRET": live_server.client_secret,
    }
    python = snippet(browser, "python")
    assert live_server.client_secret not in python
    ran = subprocess.run(
        [sys.executable, "-c", python], env=environment, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    envelope = json.loads(ran.stdout)
    assert envelope["state"] == "completed"
    assert envelope["message"]["results"][0]["response"][0]["targetLanguage"] == "pt"

    curl = snippet(browser, "curl")
    token = httpx2.post(
        f"{live_server.url}/auth/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(live_server.client_id, live_server.client_secret),
    ).json()["access_token"]
    ran = subprocess.run(
        ["bash", "-c", curl],
        env={**environment, "TOKEN": token},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0 and json.loads(ran.stdout)["state"] == "completed", ran

    node = snippet(browser, "node")
    assert "'@optave/client-sdk'" in node and live_server.client_secret not in node
    # The official SDK is not on this machine's registry (examples/node-sdk): syntax only.
    script = tmp_path / "snippet.mjs"
    script.write_text(node)
    if shutil.which("node"):
        checked = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr


def test_readable_at_a_phones_width(live_server: LiveServer, tmp_path: Path) -> None:
    with chromium(PHONE) as driver:
        sign_in(driver, live_server)
        translate_fast(driver, ["es", "fr"])
        width = driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert width[0] <= width[1], f"the page is wider than the phone: {width}"
        driver.execute_script("document.getElementById('translation-output').scrollIntoView()")
        screenshot(driver, tmp_path / "phone.png")
        assert console_errors(driver) == []


def test_protected_spans_are_found_as_the_server_finds_them(
    browser: webdriver.Chrome, live_server: LiveServer
) -> None:
    texts: list[str] = json.loads((DATA / "markdown_corpus.json").read_text())
    texts += [
        "Mail ana.b+x@example.co.uk or @sam_k, see https://x.org/a_(b)). 👩‍💻 👍🏽 🇵🇹 1️⃣",
        "Hola {{nombre}}, {0} and %(count)d :smile: [EMAIL_1] ${total} café@ü.de",
    ]
    open_page(browser, live_server)
    found = browser.execute_async_script(
        """
        const [texts, done] = arguments;
        // Offsets in code points, as Python counts them.
        const at = (text, offset) => [...text.slice(0, offset)].length;
        import('/playground/protected.js').then(({protectedSpans}) => done(texts.map((text) =>
          protectedSpans(text).map(([s, e, kind]) => [at(text, s), at(text, e), kind]))));
        """,
        texts,
    )
    for text, spans in zip(texts, found, strict=True):
        code = [(s, e) for s, e, kind in spans if kind == "code"]
        page = [(s, e) for s, e, kind in spans if kind != "code"]
        server = [
            (s, e)
            for s, e in protected_spans(text)
            if not any(cs <= s and e <= ce for cs, ce in code)
        ]
        assert page == server, text


def test_engine_badges_mark_a_fast_fallback_and_an_unapplied_formality(
    browser: webdriver.Chrome, live_server: LiveServer
) -> None:
    # A fast fallback needs the model busy past its deadline: its badges are read directly.
    engines = [
        "apertium:eng-spa (fast fallback: the model's queue is busy)",
        "bergamot:en-pt-tiny (formality not applied)",
        "none",
        "llama.cpp:qwen2.5-coder-1.5b-instruct-q4_k_m",
    ]
    open_page(browser, live_server)
    badges = browser.execute_async_script(
        """
        const [engines, done] = arguments;
        import('/playground/render.js').then(({engineBadge}) => done(engines.map((engine) =>
          engineBadge(engine).map((badge) => [badge.className, badge.textContent]))));
        """,
        engines,
    )
    assert badges == [
        [["badge engine", "apertium:eng-spa"], ["badge fallback", "fast fallback"]],
        [["badge engine", "bergamot:en-pt-tiny"], ["badge warning", "formality not applied"]],
        [["badge engine", "unchanged"]],
        [["badge engine", "llama.cpp:qwen2.5-coder-1.5b-instruct-q4_k_m"]],
    ]


@pytest.mark.parametrize(("page", "drawn"), [("/docs", ".opblock"), ("/redoc", "h1")])
def test_the_api_docs_render_from_this_server_alone(
    browser: webdriver.Chrome, live_server: LiveServer, tmp_path: Path, page: str, drawn: str
) -> None:
    browser.get(live_server.url + page)
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, drawn))
    loaded = browser.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)"
    )
    assert loaded and all(url.startswith(live_server.url + "/") for url in loaded), loaded
    # The page's policy (routes/docs.py) refused nothing it needs to work.
    logged = browser.get_log("browser")  # type: ignore[no-untyped-call]
    assert [e for e in logged if "Content Security Policy" in e["message"]] == [], logged
    screenshot(browser, tmp_path / f"{page.strip('/')}.png")
