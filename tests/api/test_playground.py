"""/playground's files: served from the package, loading nothing from another host, under a
policy that lets the page run only its own scripts and talk only to this server. (What the page
does is tested in a browser: test_playground_browser.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import model_free_settings
from threadwise.api.app import create_app
from threadwise.services import build_services

FILES = Path(__file__).resolve().parents[2] / "threadwise" / "api" / "playground"


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    services = build_services(model_free_settings(tmp_path_factory.mktemp("playground")))
    try:
        with TestClient(create_app(services, manage_services=False)) as client:
            yield client
    finally:
        services.close()


def test_the_page_and_its_policy(http: TestClient) -> None:
    page = http.get("/playground")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    policy = page.headers["content-security-policy"]
    for rule in ("default-src 'none'", "script-src 'self'", "connect-src 'self'"):
        assert rule in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    # No inline script or style: the policy would refuse them.
    assert not re.search(r"<script(?![^>]*\bsrc=)", page.text) and "<style" not in page.text
    assert " style=" not in page.text


def test_every_file_loaded_is_this_servers(http: TestClient) -> None:
    loaded = re.findall(r"""(?:src|href)=["']([^"']+)["']""", http.get("/playground").text)
    for script in FILES.glob("*.js"):
        text = script.read_text()
        imports = re.findall(r"""^import\b[^'"]*['"]([^'"]+)['"]""", text, re.MULTILINE)
        assert all(name.startswith("./") for name in imports), (script.name, imports)
        loaded += [f"/playground/{name[2:]}" for name in imports]
        # The only addresses written in the scripts are examples in the sample chats.
        hosts = set(re.findall(r"https?://([\w.-]+)", text))
        assert hosts <= {"example.com"}, (script.name, hosts)
    assert {"/playground/playground.js", "/playground/calls.js"} <= set(loaded)
    for url in set(loaded):
        if url.startswith(("/docs", "/redoc")):
            assert http.get(url).status_code == 200, url
            continue
        assert url.startswith("/playground/"), url
        answer = http.get(url)
        assert answer.status_code == 200, url
        suffix = url.rsplit(".", 1)[1]
        expected = {"js": "text/javascript", "css": "text/css"}[suffix]
        assert answer.headers["content-type"] == f"{expected}; charset=utf-8", url
        assert answer.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize(
    "name", ["nothing.js", "..%2fapp.py", ".hidden.js", "index", "playground.py", "%2e%2e"]
)
def test_anything_else_is_not_found(http: TestClient, name: str) -> None:
    answer = http.get(f"/playground/{name}")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "NOT_FOUND"


def test_unchanged_files_are_not_sent_again(http: TestClient) -> None:
    first = http.get("/playground/playground.css")
    again = http.get("/playground/playground.css", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and not again.content
