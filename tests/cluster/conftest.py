"""A loopback cluster (scripts/cluster.py) for the tests of this package: the small packaged
model on llama-cpp-python's server, two replicas, the PostgreSQL and Redis of
scripts/with-services.sh, HAProxy in front."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from scripts.cluster import (
    POSTGRES_VARIABLE,
    REDIS_VARIABLE,
    Cluster,
    find_haproxy,
    running_cluster,
)
from tests.conftest import service_url

METRICS_TOKEN = "cluster-metrics-token"


@pytest.fixture(scope="package")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    postgres, redis = service_url(POSTGRES_VARIABLE), service_url(REDIS_VARIABLE)
    if find_haproxy() is None:
        message = "haproxy is not installed: scripts/with-services.sh installs Debian's"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    settings = {
        "THREADWISE_SHUTDOWN_GRACE_SECONDS": "120",
        # What the replicas do is under test, not a cache's answer.
        "THREADWISE_RESULT_CACHE_TTL_SECONDS": "0",
        "THREADWISE_METRICS_TOKEN": METRICS_TOKEN,
        "THREADWISE_LLM_NICE": "0",
        # A killed replica's jobs are taken up by the other within seconds.
        "THREADWISE_JOBS_STALLED_SECONDS": "6",
    }
    state = tmp_path_factory.mktemp("cluster")
    with running_cluster(
        state, model="small", postgres_url=postgres, redis_url=redis, settings=settings
    ) as started:
        yield started


@pytest.fixture
def whole(cluster: Cluster) -> Iterator[Cluster]:
    """The cluster, every replica running again after the test (one it stopped restarts)."""
    yield cluster
    for replica in cluster.replicas:
        if not replica.running:
            cluster.restart(replica)
