"""The summary checks hold the figures committed in ``bench/data/corruption_figures.json``:
a kind caught less often, or correct sentences changed more often, is a regression; an
improvement is committed by ``python -m bench.corruptions --write``."""

from __future__ import annotations

import pytest

from bench.corruptions import committed, figures

TOLERANCE = 0.005


@pytest.fixture(scope="module")
def measured() -> dict[str, dict[str, float]]:
    return figures()


def test_every_kind_is_caught_at_least_as_often_as_committed(
    measured: dict[str, dict[str, float]],
) -> None:
    fallen = {
        kind: (row["caught"], measured[kind]["caught"])
        for kind, row in committed().items()
        if "caught" in row and measured[kind]["caught"] < row["caught"] - TOLERANCE
    }
    assert not fallen, f"caught share (committed, now) fell: {fallen}"


def test_correct_sentences_are_changed_at_most_as_often_as_committed(
    measured: dict[str, dict[str, float]],
) -> None:
    was, now = committed()["correct"]["changed"], measured["correct"]["changed"]
    assert now <= was + TOLERANCE, f"correct sentences changed: {now:.1%}, committed {was:.1%}"
