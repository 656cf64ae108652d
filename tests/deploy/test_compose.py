"""deploy/compose.yaml, parsed: the services of the cluster, in the order they must start,
each with a health check, the replicas behind HAProxy and on the model server."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.deploy.conftest import (
    DEPLOY,
    dockerfile_stages,
    interpolate,
    load_compose,
    model_server_settings,
    placeholders,
)
from threadwise.config import Settings
from threadwise.engines.model_files import DEFAULT_MODEL

COMPOSE = load_compose()
SERVICES: dict[str, Any] = COMPOSE["services"]
REPLICAS = ["threadwise-1", "threadwise-2"]
# Durations as compose writes them: 45s, 1m30s.
_DURATION = re.compile(r"^(?:(\d+)m)?(?:(\d+)s)?$")
UVICORN_CLOSE_SECONDS = 5


def _seconds(duration: str) -> int:
    match = _DURATION.match(duration)
    assert match and duration, f"not a duration: {duration!r}"
    return int(match[1] or 0) * 60 + int(match[2] or 0)


def _settings(environment: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return Settings()


def _builds_the_image(service: dict[str, Any]) -> bool:
    return bool(service.get("build", {}).get("dockerfile") == "deploy/Dockerfile")


def test_the_cluster_is_all_there() -> None:
    assert set(SERVICES) == {"model", "postgres", "redis", "migrate", *REPLICAS, "haproxy"}
    for name in ("model", "migrate", *REPLICAS):
        assert _builds_the_image(SERVICES[name]), name
        assert SERVICES[name]["build"]["context"] == ".."
        assert SERVICES[name]["image"] == "threadwise:latest"


def test_every_lasting_service_has_a_health_check() -> None:
    image_check = any(
        i.keyword == "HEALTHCHECK" and "/readyz" in i.arguments
        for i in dockerfile_stages((DEPLOY / "Dockerfile").read_text())[-1]
    )
    for name, service in SERVICES.items():
        check = service.get("healthcheck")
        if name == "migrate":  # a one-shot
            assert check == {"disable": True}
        elif check is None:  # the image's own: GET /readyz
            assert _builds_the_image(service) and image_check, name
        else:
            assert check["test"][0] in ("CMD", "CMD-SHELL") and not check.get("disable"), name


def test_services_start_in_order() -> None:
    def waits_for(name: str) -> dict[str, str]:
        return {other: c["condition"] for other, c in SERVICES[name].get("depends_on", {}).items()}

    assert waits_for("migrate") == {"postgres": "service_healthy"}
    for replica in REPLICAS:
        assert waits_for(replica) == {
            "migrate": "service_completed_successfully",
            "redis": "service_healthy",
            "model": "service_healthy",
        }
    assert waits_for("haproxy") == dict.fromkeys(REPLICAS, "service_started")
    assert SERVICES["migrate"]["command"] == ["threadwise", "migrate"]
    assert SERVICES["migrate"]["restart"] == "no"


def test_only_the_balancer_is_published() -> None:
    published = {name for name, service in SERVICES.items() if service.get("ports")}
    assert published == {"haproxy"}
    assert SERVICES["haproxy"]["ports"] == ["127.0.0.1:8000:8080"]
    config = (DEPLOY / "haproxy.cfg").read_text()
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in SERVICES["haproxy"]["volumes"]
    servers = re.findall(r'^\s*server (\S+) "\$\{\w+-([\w-]+):(\d+)\}"', config, re.MULTILINE)
    assert servers == [(name, name, "8000") for name in REPLICAS]


def test_replicas_share_the_stores_and_use_the_model_server(
    isolated_environment: pytest.MonkeyPatch,
) -> None:
    environments = [SERVICES[name]["environment"] for name in ("migrate", *REPLICAS)]
    assert all(environment == environments[0] for environment in environments)
    settings = _settings(environments[0], isolated_environment)
    assert settings.production
    assert settings.database_url and urlsplit(settings.database_url).hostname == "postgres"
    assert settings.redis_url and urlsplit(settings.redis_url).hostname == "redis"
    assert settings.llm_url is not None
    url = urlsplit(settings.llm_url)
    server = model_server_settings(SERVICES["model"]["command"])
    assert (url.hostname, url.port) == ("model", server.port)
    assert server.model_alias == settings.llm_model and not server.interrupt_requests
    assert server.model.endswith("/" + DEFAULT_MODEL.filename)
    # The model server's key is the one the replicas send.
    assert settings.llm_api_key is not None
    assert SERVICES["model"]["environment"]["API_KEY"] == settings.llm_api_key.get_secret_value()


def test_a_stopped_replica_has_time_to_drain(isolated_environment: pytest.MonkeyPatch) -> None:
    for name in REPLICAS:
        service = SERVICES[name]
        settings = _settings(service["environment"], isolated_environment)
        needed = settings.shutdown_grace_seconds + UVICORN_CLOSE_SECONDS
        assert _seconds(service["stop_grace_period"]) > needed


def test_secrets_come_from_the_environment() -> None:
    text = (DEPLOY / "compose.yaml").read_text()
    secrets = {
        "POSTGRES_PASSWORD",
        "REDIS_PASSWORD",
        "THREADWISE_JWT_SECRET",
        "THREADWISE_METRICS_TOKEN",
        "THREADWISE_LLM_API_KEY",
    }
    assert placeholders(text) == secrets
    # Each is required: compose refuses to start without it, rather than use a default.
    operators = {op for _, op in re.findall(r"\$\{(\w+)(:?[?-]?)", text)}
    assert operators == {":?"}
    with pytest.raises(KeyError):
        interpolate(text, {})
    example = (DEPLOY / "compose.env.example").read_text()
    assert {line.split("=")[0] for line in example.splitlines() if "=" in line} == secrets
    assert all(line.endswith("=") for line in example.splitlines() if "=" in line)
