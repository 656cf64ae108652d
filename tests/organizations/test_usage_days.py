"""The UTC days usage is counted by: the next month, and the days a report covers."""

from __future__ import annotations

import re
from datetime import date

import pytest

from threadwise.organizations.usage_days import next_month, report_days


@pytest.mark.parametrize(
    ("day", "following"),
    [
        (date(2026, 1, 31), date(2026, 2, 1)),
        (date(2026, 12, 1), date(2027, 1, 1)),
        (date(2028, 2, 29), date(2028, 3, 1)),
    ],
)
def test_next_month(day: date, following: date) -> None:
    assert next_month(day) == following


def test_report_days() -> None:
    today = date(2026, 11, 24)
    assert report_days(None, None, today) == (date(2026, 11, 1), today)
    assert report_days("2025-11-24", None, today) == (date(2025, 11, 24), today)  # 366 days
    refusals = {
        ("2026-02-30", None): "'from' is a UTC day as YYYY-MM-DD",
        (None, "24/11/2026"): "'to' is a UTC day as YYYY-MM-DD",
        ("2026-11-10", "2026-11-09"): "'to' (2026-11-09) is before 'from' (2026-11-10)",
        ("2025-11-23", None): "is 367 days, more than the 366 one report covers",
    }
    for (first, last), message in refusals.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            report_days(first, last, today)
