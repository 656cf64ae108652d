"""/playground's files: served from the package, loading nothing from another host, under a
policy that lets the page run only its own scripts and talk only to this server. (What the page
does is tested in a browser: test_playground_browser.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

FILES = Path(__file__).resolve().parents[3] / "threadwise" / "api" / "playground"


def test_the_page_and_its_policy(pages: TestClient) -> None:
    page = pages.get("/playground")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    policy = page.headers["content-security-policy"]
    for rule in ("default-src 'none'", "script-src 'self'", "connect-src 'self'"):
        assert rule in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    # No inline script or style: the policy would refuse them.
    assert not re.search(r"<script(?![^>]*\bsrc=)", page.text) and "<style" not in page.text
    assert " style=" not in page.text


def test_every_file_loaded_is_this_servers(pages: TestClient) -> None:
    loaded = re.findall(r"""(?:src|href)=["']([^"']+)["']""", pages.get("/playground").text)
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
            assert pages.get(url).status_code == 200, url
            continue
        assert url.startswith("/playground/"), url
        answer = pages.get(url)
        assert answer.status_code == 200, url
        suffix = url.rsplit(".", 1)[1]
        expected = {"js": "text/javascript", "css": "text/css"}[suffix]
        assert answer.headers["content-type"] == f"{expected}; charset=utf-8", url
        assert answer.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize(
    "name",
    [
        "nothing.js",
        "..%2fapp.py",
        ".hidden.js",
        "index",
        "playground.py",
        "%2e%2e",
        # Longer than a file name may be: the file system's refusal was a 500.
        "a" * 300 + ".js",
        "%00.js",
    ],
)
def test_anything_else_is_not_found(pages: TestClient, name: str) -> None:
    answer = pages.get(f"/playground/{name}")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "NOT_FOUND"


def test_unchanged_files_are_not_sent_again(pages: TestClient) -> None:
    first = pages.get("/playground/playground.css")
    again = pages.get(
        "/playground/playground.css", headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and not again.content
