"""/docs and /redoc: served with their assets from the package, nothing from another host,
under a policy that runs only their own scripts and lets no other page frame them."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_pages_load_everything_from_this_server(pages: TestClient, page: str) -> None:
    response = pages.get(page)
    assert response.status_code == 200 and "text/html" in response.headers["content-type"]
    html = response.text
    assert "/openapi.json" in html
    # Every file the page loads is one of this server's paths, and each is served.
    loaded = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    loaded += re.findall(r"""\b\w+Url["']?\s*:\s*["']([^"']+)["']""", html)
    assert loaded and all(url.startswith("/") for url in loaded), loaded
    assert "http://" not in html and "https://" not in html
    for url in {u for u in loaded if u.startswith("/docs/assets/")}:
        asset = pages.get(url)
        assert asset.status_code == 200 and len(asset.content) > 1000, url


def test_the_assets_and_an_unknown_one(pages: TestClient) -> None:
    script = pages.get("/docs/assets/swagger-ui-bundle.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert pages.get("/docs/assets/swagger-ui.css").headers["content-type"].startswith("text/css")
    missing = pages.get("/docs/assets/..%2fconsts.py")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    assert pages.get("/docs/oauth2-redirect").status_code == 200


@pytest.mark.parametrize("page", ["/docs", "/redoc", "/docs/oauth2-redirect"])
def test_the_pages_run_only_their_own_scripts_and_are_framed_by_none(
    pages: TestClient, page: str
) -> None:
    response = pages.get(page)
    policy = dict(
        rule.strip().split(" ", 1)
        for rule in response.headers["content-security-policy"].split(";")
    )
    assert policy["default-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'" and response.headers["x-frame-options"] == "DENY"
    assert policy["connect-src"] == "'self'" and policy["base-uri"] == "'none'"
    # This server's files, and each inline script of the page by its hash: nothing else runs.
    inline = re.findall(r"<script>(.*?)</script>", response.text, re.DOTALL)
    hashes = {
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in inline
    }
    assert set(policy["script-src"].split()) == {"'self'", *hashes}
    assert "unsafe-eval" not in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
