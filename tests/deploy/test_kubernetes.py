"""deploy/k8s: every manifest against Kubernetes' own schemas (offline, strict: no unknown
field), KEDA's ScaledObject against its documented fields, and what must agree between them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import kubernetes_validate  # type: ignore[import-untyped]
import pytest

from tests.deploy.conftest import (
    DEPLOY,
    K8S,
    dockerfile_stages,
    find,
    load_manifests,
    model_server_settings,
)
from threadwise.cli import build_parser
from threadwise.config import Settings
from threadwise.engines.model_files import DEFAULT_MODEL
from threadwise.metrics import Metrics

# The oldest Kubernetes these manifests are meant for, and the newest schemas at hand.
VERSIONS = ["1.29", kubernetes_validate.latest_version()]
# threadwise/api/server.py: after the drain, uvicorn gets this long to close connections.
UVICORN_CLOSE_SECONDS = 5
DOCUMENTS = load_manifests()
BUILT_IN = [d for d in DOCUMENTS if not d["apiVersion"].startswith("keda.sh/")]
SCALED_OBJECT_SCHEMA = json.loads((Path(__file__).parent / "scaledobject.schema.json").read_text())


def _id(document: dict[str, Any]) -> str:
    return f"{document['kind']}/{document['metadata']['name']}"


def _container(pod_owner: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = pod_owner["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def _settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The settings a threadwise pod gets from its ConfigMap and Secret."""
    config = find(DOCUMENTS, "ConfigMap", "threadwise-settings")["data"]
    secret = find(DOCUMENTS, "Secret", "threadwise-secrets")["stringData"]
    for name, value in {**config, **secret}.items():
        monkeypatch.setenv(name, value)
    return Settings()


def _image_user() -> int:
    final = dockerfile_stages((DEPLOY / "Dockerfile").read_text())[-1]
    user = [i.arguments for i in final if i.keyword == "USER"][-1]
    return int(user.split(":")[0])


def test_the_manifests_are_all_there() -> None:
    kinds = {_id(d) for d in DOCUMENTS}
    assert kinds >= {
        "Namespace/threadwise",
        "ConfigMap/threadwise-settings",
        "Secret/threadwise-secrets",
        "Deployment/threadwise",
        "Service/threadwise",
        "Job/threadwise-migrate",
        "PodDisruptionBudget/threadwise",
        "ScaledObject/threadwise",
        "Deployment/threadwise-model",
        "Service/threadwise-model",
    }
    namespaced = [d for d in DOCUMENTS if d["kind"] != "Namespace"]
    assert {d["metadata"]["namespace"] for d in namespaced} == {"threadwise"}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("document", BUILT_IN, ids=_id)
def test_each_manifest_matches_the_kubernetes_schema(
    document: dict[str, Any], version: str
) -> None:
    kubernetes_validate.validate(document, version, strict=True)


def test_the_schemas_refuse_a_misspelt_field() -> None:
    deployment = copy.deepcopy(find(DOCUMENTS, "Deployment", "threadwise"))
    deployment["spec"]["template"]["spec"]["terminationGracePeriod"] = 60
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[0], strict=True)


def test_the_scaled_object_has_kedas_documented_fields() -> None:
    scaled = find(DOCUMENTS, "ScaledObject", "threadwise")
    jsonschema.Draft202012Validator(SCALED_OBJECT_SCHEMA).validate(scaled)
    spec = scaled["spec"]
    # KEDA hands its behavior to the HorizontalPodAutoscaler it creates: Kubernetes' schema.
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "threadwise"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"},
            "maxReplicas": spec["maxReplicaCount"],
            "behavior": spec["advanced"]["horizontalPodAutoscalerConfig"]["behavior"],
        },
    }
    for version in VERSIONS:
        kubernetes_validate.validate(hpa, version, strict=True)
    assert find(DOCUMENTS, "Deployment", spec["scaleTargetRef"]["name"])
    # One replica may be disrupted at a time (pdb.yaml): two keep the service up.
    assert 2 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]


def test_scaling_reads_a_metric_the_service_exports() -> None:
    exported = Metrics().exposition().decode()
    queries = [
        t["metadata"]["query"]
        for t in find(DOCUMENTS, "ScaledObject", "threadwise")["spec"]["triggers"]
    ]
    assert queries and all("threadwise_queue_depth{" in query for query in queries)
    assert "# TYPE threadwise_queue_depth gauge" in exported


@pytest.mark.parametrize(
    "mistake",
    [
        lambda spec: spec.update(minReplicas=2),
        lambda spec: spec["triggers"][0]["metadata"].update(threshold=4),
        lambda spec: spec["triggers"][0]["metadata"].update(treshold="4"),
        lambda spec: spec["triggers"][0]["metadata"].pop("serverAddress"),
    ],
    ids=["misspelt field", "number not text", "misspelt metadata", "no server"],
)
def test_the_scaled_object_schema_catches_mistakes(mistake: Any) -> None:
    scaled = copy.deepcopy(find(DOCUMENTS, "ScaledObject", "threadwise"))
    mistake(scaled["spec"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCALED_OBJECT_SCHEMA).validate(scaled)


def test_a_pod_drains_before_it_is_killed(
    isolated_environment: pytest.MonkeyPatch,
) -> None:
    settings = _settings(isolated_environment)
    pod = find(DOCUMENTS, "Deployment", "threadwise")["spec"]["template"]["spec"]
    command = _container({"spec": {"template": {"spec": pod}}})["lifecycle"]["preStop"]["exec"]
    assert command["command"][0] == "sleep"
    pre_stop = float(command["command"][1])
    needed = pre_stop + settings.shutdown_grace_seconds + UVICORN_CLOSE_SECONDS
    assert pod["terminationGracePeriodSeconds"] > needed


def test_the_replicas_are_probed_and_run_unprivileged() -> None:
    deployment = find(DOCUMENTS, "Deployment", "threadwise")
    container = _container(deployment)
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    assert container["args"] == ["threadwise", "serve", "--host", "0.0.0.0", "--port", "8000"]
    assert [p["containerPort"] for p in container["ports"]] == [8000]
    assert {"cpu", "memory"} <= container["resources"]["requests"].keys()
    assert "memory" in container["resources"]["limits"]
    for owner in (deployment, find(DOCUMENTS, "Job", "threadwise-migrate")):
        pod = owner["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] == _image_user() != 0
        assert _container(owner)["securityContext"]["allowPrivilegeEscalation"] is False


def test_services_and_budget_select_the_right_pods() -> None:
    api = find(DOCUMENTS, "Deployment", "threadwise")
    model = find(DOCUMENTS, "Deployment", "threadwise-model")
    for owner in (api, model):
        assert owner["spec"]["selector"]["matchLabels"].items() <= (
            owner["spec"]["template"]["metadata"]["labels"].items()
        )

    def selects(selector: dict[str, str], owner: dict[str, Any]) -> bool:
        labels: dict[str, str] = owner["spec"]["template"]["metadata"]["labels"]
        return selector.items() <= labels.items()

    service = find(DOCUMENTS, "Service", "threadwise")["spec"]["selector"]
    budget = find(DOCUMENTS, "PodDisruptionBudget", "threadwise")["spec"]["selector"]
    model_service = find(DOCUMENTS, "Service", "threadwise-model")["spec"]["selector"]
    assert selects(service, api) and not selects(service, model)
    assert selects(budget["matchLabels"], api) and not selects(budget["matchLabels"], model)
    assert selects(model_service, model) and not selects(model_service, api)


def test_pods_read_settings_that_exist(isolated_environment: pytest.MonkeyPatch) -> None:
    names = {(d["kind"], d["metadata"]["name"]) for d in DOCUMENTS}
    secret = find(DOCUMENTS, "Secret", "threadwise-secrets")["stringData"]
    for owner in DOCUMENTS:
        if owner["kind"] not in ("Deployment", "Job"):
            continue
        container = _container(owner)
        for source in container.get("envFrom", []):
            if "configMapRef" in source:
                assert ("ConfigMap", source["configMapRef"]["name"]) in names
            if "secretRef" in source:
                assert ("Secret", source["secretRef"]["name"]) in names
        for variable in container.get("env", []):
            reference = variable.get("valueFrom", {}).get("secretKeyRef")
            if reference:
                assert reference["name"] == "threadwise-secrets" and reference["key"] in secret
    settings = _settings(isolated_environment)
    assert settings.production and settings.metrics_token and settings.redis_url


def test_the_replicas_use_the_model_server(isolated_environment: pytest.MonkeyPatch) -> None:
    settings = _settings(isolated_environment)
    assert settings.llm_url is not None
    url = urlsplit(settings.llm_url)
    service = find(DOCUMENTS, "Service", "threadwise-model")
    assert url.hostname == service["metadata"]["name"]
    assert url.port in [p["port"] for p in service["spec"]["ports"]]
    model = find(DOCUMENTS, "Deployment", "threadwise-model")
    server = model_server_settings(_container(model)["args"])
    assert server.model_alias == settings.llm_model
    assert server.port == 8080 and not server.interrupt_requests
    assert Path(server.model) == _image_model_dir() / DEFAULT_MODEL.filename


def _image_model_dir() -> Path:
    final = dockerfile_stages((DEPLOY / "Dockerfile").read_text())[-1]
    env = " ".join(i.arguments for i in final if i.keyword == "ENV")
    return Path(env.split("THREADWISE_MODEL_DIR=")[1].split()[0])


def test_the_migration_job_runs_the_migrate_command() -> None:
    job = find(DOCUMENTS, "Job", "threadwise-migrate")
    args = _container(job)["args"]
    assert args[0] == "threadwise"
    assert build_parser().parse_args(args[1:]).command == "migrate"
    assert job["spec"]["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure")


def test_every_image_is_the_same() -> None:
    images = {_container(d)["image"] for d in DOCUMENTS if d["kind"] in ("Deployment", "Job")}
    assert len(images) == 1


def test_the_secret_template_holds_placeholders_only() -> None:
    text = (K8S / "secret.yaml.example").read_text()
    values = [
        line.split(":", 1)[1].strip()
        for line in text.splitlines()
        if line.startswith("  THREADWISE_")
    ]
    assert values and all("${" in value for value in values)
