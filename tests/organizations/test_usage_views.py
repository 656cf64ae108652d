"""What ``GET /usage`` answers: usage per day and operation, totals, and the month's quota."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest

from threadwise.db.database import Database
from threadwise.organizations.policies import OrganizationPolicy
from threadwise.organizations.usage import Counts, DayUsage, UsageReport, UsageStore
from threadwise.organizations.usage_views import usage_document, usage_quota

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
REPORT = UsageReport(
    date(2026, 11, 1),
    date(2026, 11, 24),
    (
        DayUsage(date(2026, 11, 2), "summarize", Counts(2, 300, 120, 40)),
        DayUsage(date(2026, 11, 2), "translate", Counts(1, 50, 0, 0)),
        DayUsage(date(2026, 11, 3), "translate", Counts(3, 70, 10, 5)),
    ),
)


@pytest.fixture
def store(database: Database) -> Iterator[UsageStore]:
    built = UsageStore(database, now=lambda: NOW)
    yield built
    built.close()


def test_totals_add_the_days_and_split_the_characters_by_operation() -> None:
    totals = usage_document("org-a", REPORT, None).totals
    assert (totals.requests, totals.promptTokens, totals.completionTokens) == (6, 130, 45)
    assert (totals.charactersSummarized, totals.charactersTranslated) == (300, 120)
    assert totals.byOperation.translate.requests == 4
    assert totals.byOperation.summarize.characters == 300


def test_the_wire_form_names_the_range_from_and_to() -> None:
    wire = usage_document("org-a", REPORT, None).model_dump(mode="json", by_alias=True)
    assert (wire["organizationId"], wire["from"], wire["to"]) == (
        "org-a",
        "2026-11-01",
        "2026-11-24",
    )
    assert wire["days"][0] == {
        "date": "2026-11-02",
        "operation": "summarize",
        "requests": 2,
        "characters": 300,
        "promptTokens": 120,
        "completionTokens": 40,
    }
    assert wire["quota"] is None


def test_no_quota_without_a_monthly_limit(store: UsageStore, tenant: str) -> None:
    assert usage_quota(store, tenant, "org-a", OrganizationPolicy()) is None


def test_the_quota_counts_this_month_and_resets_next_month(store: UsageStore, tenant: str) -> None:
    store.add(tenant, "org-a", "translate", 40, 0, 0, when=NOW)
    store.add(tenant, "org-a", "summarize", 60, 5, 5, when=datetime(2026, 11, 1, tzinfo=UTC))
    store.add(tenant, "org-a", "summarize", 999, 5, 5, when=datetime(2026, 10, 31, tzinfo=UTC))
    store.add(tenant, "org-b", "summarize", 999, 5, 5, when=NOW)
    quota = usage_quota(store, tenant, "org-a", OrganizationPolicy(monthly_characters=1000))
    assert quota is not None
    assert (quota.monthlyCharacters, quota.usedThisMonth) == (1000, 100)
    assert quota.resetsOn == date(2026, 12, 1)
