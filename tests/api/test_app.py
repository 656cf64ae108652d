"""The app as a whole: how paths are matched."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_a_trailing_slash_is_not_redirected_to_the_host_a_client_names(pages: TestClient) -> None:
    """Starlette answered /healthz/ with a 307 to http://<the Host header>/healthz."""
    response = pages.get("/healthz/", headers={"host": "evil.example"}, follow_redirects=False)
    assert response.status_code == 404 and "location" not in response.headers
    assert response.json()["error"]["code"] == "NOT_FOUND"
