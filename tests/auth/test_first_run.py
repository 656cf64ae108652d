from __future__ import annotations

from pathlib import Path

from threadwise.auth.first_run import FIRST_RUN_ORGANIZATIONS, ensure_first_run_client
from threadwise.config import Settings
from threadwise.services import build_client_registry

EXAMPLE = Path(__file__).parents[2] / "examples" / "summarize-request.json"


def test_created_once(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    registry = build_client_registry(settings)
    created = ensure_first_run_client(registry, settings)
    assert created is not None
    assert created.client.tenant == "default"
    assert registry.check_secret(created.client.client_id, created.client_secret).matches
    assert ensure_first_run_client(registry, settings) is None
    assert registry.count() == 1


def test_not_when_clients_exist_or_in_production(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    registry = build_client_registry(settings)
    registry.create("default", ["org-1"])
    assert ensure_first_run_client(registry, settings) is None
    production = Settings(data_dir=tmp_path / "prod", production=True)
    assert ensure_first_run_client(build_client_registry(production), production) is None


def test_its_organization_is_the_examples() -> None:
    assert f'"organizationId": "{FIRST_RUN_ORGANIZATIONS[0]}"' in EXAMPLE.read_text()
