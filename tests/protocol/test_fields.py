from __future__ import annotations

from threadwise.protocol import MAX_ECHOED_ID_LENGTH, echoed_id


def test_echoed_ids_are_cut_to_the_limit() -> None:
    assert echoed_id("x" * 500) == "x" * MAX_ECHOED_ID_LENGTH
    assert echoed_id("short") == "short"
    assert echoed_id(None) is None
