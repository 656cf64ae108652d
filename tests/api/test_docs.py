"""/docs and /redoc: served with their assets from the package, nothing from another host."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.conftest import model_free_settings
from threadwise.api.app import create_app
from threadwise.services import build_services


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    services = build_services(model_free_settings(tmp_path_factory.mktemp("docs")))
    try:
        with TestClient(create_app(services, manage_services=False)) as client:
            yield client
    finally:
        services.close()


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_pages_load_everything_from_this_server(http: TestClient, page: str) -> None:
    response = http.get(page)
    assert response.status_code == 200 and "text/html" in response.headers["content-type"]
    html = response.text
    assert "/openapi.json" in html
    # Every file the page loads is one of this server's paths, and each is served.
    loaded = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    loaded += re.findall(r"""\b\w+Url["']?\s*:\s*["']([^"']+)["']""", html)
    assert loaded and all(url.startswith("/") for url in loaded), loaded
    assert "http://" not in html and "https://" not in html
    for url in {u for u in loaded if u.startswith("/docs/assets/")}:
        asset = http.get(url)
        assert asset.status_code == 200 and len(asset.content) > 1000, url


def test_the_assets_and_an_unknown_one(http: TestClient) -> None:
    script = http.get("/docs/assets/swagger-ui-bundle.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert http.get("/docs/assets/swagger-ui.css").headers["content-type"].startswith("text/css")
    missing = http.get("/docs/assets/..%2fconsts.py")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    assert http.get("/docs/oauth2-redirect").status_code == 200
