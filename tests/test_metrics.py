"""Metric labels stay bounded whatever callers send."""

from __future__ import annotations

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
