"""The open batch: jobs join it until it is full or has been open long enough."""

from __future__ import annotations

import pytest

from threadwise.jobs.batches import OpenBatch


def test_jobs_join_the_open_batch_until_it_is_full_or_old() -> None:
    now = [0.0]
    batch = OpenBatch(max_jobs=4, max_seconds=1.0, clock=lambda: now[0])
    first = batch.join(1)
    assert batch.join(3) == first and first.startswith("bat_") and len(first) == 36
    full = batch.join(1)  # a fifth would overfill it
    assert full != first
    assert batch.join(4) != full  # four more would overfill the new one too
    now[0] += 1.0
    assert batch.join(1) not in (first, full)


def test_max_jobs_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_jobs"):
        OpenBatch(max_jobs=0)
