"""The UTC days and months usage is counted by, and the days one report covers."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

MAX_DAYS = 366  # that one report covers
_YYYY_MM_DD = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def utc_day(when: datetime) -> date:
    return when.astimezone(UTC).date()


def month_start(day: date) -> date:
    return day.replace(day=1)


def next_month(day: date) -> date:
    """The first day of the month after ``day``'s: when a monthly quota starts again."""
    if day.month == 12:
        return date(day.year + 1, 1, 1)
    return date(day.year, day.month + 1, 1)


def report_days(first: str | None, last: str | None, today: date) -> tuple[date, date]:
    """The days ``from`` and ``to`` name (by default, this month up to ``today``), or
    ``ValueError`` saying what to fix."""
    first_day = _day(first, "from") if first is not None else month_start(today)
    last_day = _day(last, "to") if last is not None else today
    if last_day < first_day:
        raise ValueError(f"'to' ({last_day}) is before 'from' ({first_day}): give a later 'to'.")
    days = (last_day - first_day).days + 1
    if days > MAX_DAYS:
        raise ValueError(
            f"From {first_day} to {last_day} is {days} days, more than the {MAX_DAYS} one report "
            "covers: bring 'from' and 'to' closer, and ask for the rest in another report."
        )
    return first_day, last_day


def _day(value: str, name: str) -> date:
    try:
        if _YYYY_MM_DD.fullmatch(value):
            return date.fromisoformat(value)
    except ValueError:  # 2026-02-30
        pass
    raise ValueError(f"'{name}' is a UTC day as YYYY-MM-DD (2026-11-01, say), got {value[:40]!r}.")
