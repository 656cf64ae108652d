"""The summary checks hold the figures committed in ``bench/data/corruption_figures.json``:
a kind caught less often, or correct sentences changed more often, is a regression; an
improvement is committed by ``python -m bench.corruptions --write``."""

from __future__ import annotations

import pytest

from bench.corruptions import ALL, SUPPORT, committed, dialogsum_present, figures

TOLERANCE = 0.005
# The support chats are the repository's own and always measured; the DialogSum dialogues
# only where the dev set lies beside the repository (its license keeps it out).
SECTIONS = [
    pytest.param(SUPPORT, id="support-chats"),
    pytest.param(
        ALL,
        id="all",
        marks=pytest.mark.skipif(not dialogsum_present(), reason="no DialogSum dev set here"),
    ),
]


@pytest.fixture(scope="module")
def measured() -> dict[str, dict[str, dict[str, float]]]:
    found = {SUPPORT: figures(dialogsum=False)}
    if dialogsum_present():
        found[ALL] = figures()
    return found


@pytest.mark.parametrize("section", SECTIONS)
def test_every_kind_is_caught_at_least_as_often_as_committed(
    measured: dict[str, dict[str, dict[str, float]]], section: str
) -> None:
    now = measured[section]
    fallen = {
        kind: (row["caught"], now[kind]["caught"])
        for kind, row in committed(section).items()
        if "caught" in row and now[kind]["caught"] < row["caught"] - TOLERANCE
    }
    assert not fallen, f"caught share (committed, now) fell: {fallen}"


@pytest.mark.parametrize("section", SECTIONS)
def test_correct_sentences_are_changed_at_most_as_often_as_committed(
    measured: dict[str, dict[str, dict[str, float]]], section: str
) -> None:
    was, now = committed(section)["correct"]["changed"], measured[section]["correct"]["changed"]
    assert now <= was + TOLERANCE, f"correct sentences changed: {now:.1%}, committed {was:.1%}"
