"""Metric labels stay bounded whatever callers send; a job worker's metrics join its server's."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from threadwise.metrics import MAX_ORGANIZATION_LABELS, OTHER_ORGANIZATIONS, BoundedLabel, Metrics


def test_a_bounded_label_names_its_first_values_then_other() -> None:
    label = BoundedLabel(2, "other")
    assert [label(v) for v in ("a", "b", "c", "a", "d", "b")] == [
        "a",
        "b",
        "other",
        "a",
        "other",
        "b",
    ]


def test_organization_labels_are_capped() -> None:
    metrics = Metrics()
    for n in range(MAX_ORGANIZATION_LABELS * 3):
        metrics.count_request("translate", "OK", f"org-{n}", "rest")
    metrics.count_request("translate", "MISSING_TOKEN", None, "rest")
    text = metrics.exposition().decode()
    lines = [line for line in text.splitlines() if line.startswith("threadwise_requests_total{")]
    assert len(lines) == MAX_ORGANIZATION_LABELS + 2  # the named, "other", and none
    assert f'organization="{OTHER_ORGANIZATIONS}"' in text
    assert 'organization="org-0"' in text
    assert f'organization="org-{MAX_ORGANIZATION_LABELS}"' not in text
    assert 'code="MISSING_TOKEN",operation="translate",organization=""' in text


def test_a_workers_metrics_are_added_to_the_servers() -> None:
    server, worker = Metrics(), Metrics()
    server.jobs_ended.labels("translate", "completed").inc(3)
    worker.jobs_ended.labels("translate", "completed").inc(2)
    worker.jobs_ended.labels("summarize", "failed").inc()
    server.jobs_queued.set(7)
    text = server.exposition(worker.exposition().decode()).decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    ended = "threadwise_jobs_ended_total"
    assert samples[(ended, (("operation", "translate"), ("status", "completed")))] == 5
    assert samples[(ended, (("operation", "summarize"), ("status", "failed")))] == 1
    assert samples[("threadwise_jobs_queued", ())] == 7  # the worker's is 0
    # Every family once, as a scraper requires.
    assert len(text.split("# TYPE threadwise_jobs_ended_total ")) == 2
