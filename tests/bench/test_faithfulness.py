from __future__ import annotations

from bench.faithfulness import score
from tests.conftest import minimal_body


def test_score_lists_invented_names_numbers_and_lost_ids() -> None:
    body = minimal_body()
    result = score("Ana reports parcel 7718 late; Oren sends a new one.", body, ["7781", "new"])
    assert result.invented_names == ("Oren",)
    assert result.unsupported_numbers == ("7718",)
    assert result.lost_ids == ("7781",)
    assert (result.key_facts_kept, result.key_facts) == (1, 2)


def test_score_of_a_faithful_summary_is_clean() -> None:
    result = score("Ana reports parcel 7781 late, and Bo sends a new one.", minimal_body())
    assert not result.invented_names and not result.unsupported_numbers and not result.lost_ids
