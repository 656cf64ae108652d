"""Organizations' policies: stored, cached per replica, and refused with a reason."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete

from tests.clock import ManualClock
from threadwise.db.database import Database
from threadwise.db.tables import Tenant
from threadwise.organizations.aspects import CustomAspect
from threadwise.organizations.policies import OrganizationPolicies, OrganizationPolicy
from threadwise.protocol import BUILT_IN_ASPECTS

TONE = CustomAspect(
    "tone",
    "Say in a few words how the agent sounded.",
    "Ana: My order is late.\nAgent: I'm so sorry, let me fix that right now.",
    "Apologetic and eager to help.",
)
RISK = CustomAspect(
    "Churn-risk",
    "Say whether the customer may leave, and why.",
    "Bo: This is the third time. I'm looking at other providers.",
    "High: a repeated problem, and the customer says they are looking elsewhere.",
)


@pytest.fixture
def policies(database: Database, clock: ManualClock) -> OrganizationPolicies:
    return OrganizationPolicies(database, cache_seconds=30, clock=clock)


def test_an_organization_with_nothing_stored_has_the_empty_policy(
    policies: OrganizationPolicies, tenant: str
) -> None:
    assert asyncio.run(policies.get(tenant, "org-a")) == OrganizationPolicy()
    assert policies.policy(tenant, "org-a") == OrganizationPolicy()
    assert policies.organizations(tenant) == []


def test_round_trip(policies: OrganizationPolicies, tenant: str) -> None:
    policies.put_aspect(tenant, "org-a", TONE)
    policies.put_aspect(tenant, "org-a", CustomAspect(f"  {RISK.name} ", *_texts(RISK, " ")))
    # Aspect names as the organization spells them, whatever case they are given in.
    stored = policies.set_defaults(
        tenant,
        "org-a",
        summary_aspects=["ISSUE", "churn-risk", "nextSteps", "issue"],
        redact_personal_data="mask",
    )
    expected = OrganizationPolicy(
        summary_aspects=("issue", "Churn-risk", "nextSteps"),
        redact_personal_data="mask",
        custom_aspects=(RISK, TONE),  # by name, case aside
    )
    assert stored == expected
    assert policies.policy(tenant, "org-a") == expected
    assert asyncio.run(policies.get(tenant, "org-a")) == expected
    # Another replica reads the same.
    other = OrganizationPolicies(policies.database)
    assert asyncio.run(other.get(tenant, "org-a")) == expected
    assert policies.policy(tenant.upper(), " org-a ") == expected


def test_put_replaces_an_aspect_of_the_same_name(
    policies: OrganizationPolicies, tenant: str
) -> None:
    policies.put_aspect(tenant, "org-a", TONE)
    changed = CustomAspect("tone", "Name the agent's tone in one word.", "A: hi", "Friendly.")
    policies.put_aspect(tenant, "org-a", changed)
    assert policies.policy(tenant, "org-a").custom_aspects == (changed,)


def test_set_defaults_changes_only_what_it_is_given(
    policies: OrganizationPolicies, tenant: str
) -> None:
    policies.set_defaults(tenant, "org-a", summary_aspects=["recap"], redact_personal_data="mask")
    kept = policies.set_defaults(tenant, "org-a", summary_aspects=["issue"])
    assert kept == OrganizationPolicy(summary_aspects=("issue",), redact_personal_data="mask")
    kept = policies.set_defaults(tenant, "org-a", redact_personal_data="restore")
    assert kept == OrganizationPolicy(summary_aspects=("issue",), redact_personal_data="restore")
    assert policies.set_defaults(tenant, "org-a") == kept
    cleared = policies.set_defaults(tenant, "org-a", redact_personal_data="off")
    assert cleared == OrganizationPolicy(summary_aspects=("issue",))
    assert policies.organizations(tenant) == [(tenant, "org-a")]
    cleared = policies.set_defaults(tenant, "org-a", summary_aspects=[])
    assert cleared == OrganizationPolicy()
    assert policies.organizations(tenant) == []  # nothing is left stored
    policies.set_defaults(tenant, "org-a", summary_aspects=["recap"], redact_personal_data="mask")
    cleared = policies.set_defaults(
        tenant, "org-a", summary_aspects=None, redact_personal_data=None
    )
    assert cleared == OrganizationPolicy()


def test_the_cache_and_what_drops_it(
    policies: OrganizationPolicies, tenant: str, clock: ManualClock
) -> None:
    assert asyncio.run(policies.get(tenant, "org-a")) == OrganizationPolicy()
    elsewhere = OrganizationPolicies(policies.database)  # another replica, or the CLI
    elsewhere.set_defaults(tenant, "org-a", redact_personal_data="mask")
    assert asyncio.run(policies.get(tenant, "org-a")) == OrganizationPolicy()
    clock.now += 31
    masked = OrganizationPolicy(redact_personal_data="mask")
    assert asyncio.run(policies.get(tenant, "org-a")) == masked

    # Each change made through this replica shows on it at once.
    policies.put_aspect(tenant, "org-a", TONE)
    masked = OrganizationPolicy(redact_personal_data="mask", custom_aspects=(TONE,))
    assert asyncio.run(policies.get(tenant, "org-a")) == masked
    policies.set_defaults(tenant, "org-a", summary_aspects=["tone"])
    assert asyncio.run(policies.get(tenant, "org-a")).summary_aspects == ("tone",)
    policies.set_defaults(tenant, "org-a", summary_aspects=[])
    assert policies.remove_aspect(tenant, "org-a", "tone")
    assert asyncio.run(policies.get(tenant, "org-a")) == OrganizationPolicy(
        redact_personal_data="mask"
    )


def test_remove(policies: OrganizationPolicies, tenant: str) -> None:
    policies.put_aspect(tenant, "org-a", TONE)
    policies.put_aspect(tenant, "org-a", RISK)
    policies.set_defaults(tenant, "org-a", summary_aspects=["churn-risk"])
    with pytest.raises(ValueError, match="organization 'org-a': set the defaults without it"):
        policies.remove_aspect(tenant, "org-a", "Churn-risk")
    assert policies.remove_aspect(tenant, "org-a", "TONE")  # its name in any case
    assert not policies.remove_aspect(tenant, "org-a", "tone")
    assert not policies.remove_aspect(tenant, "org-b", "Churn-risk")
    assert policies.policy(tenant, "org-a").custom_aspects == (RISK,)


def test_organizations(policies: OrganizationPolicies, tenant: str, database: Database) -> None:
    policies.put_aspect(tenant, "org-b", TONE)
    policies.put_aspect(tenant, "org-b", RISK)
    policies.set_defaults(tenant, "org-b", redact_personal_data="restore")
    policies.set_defaults(tenant, "org-a", summary_aspects=["recap"])
    with database.session() as session, session.begin():
        session.add(Tenant(name=f"{tenant}-2", created_at=datetime.now(UTC)))
    policies.set_defaults(f"{tenant}-2", "org-c", summary_aspects=["recap"])
    assert policies.organizations(tenant) == [(tenant, "org-a"), (tenant, "org-b")]
    everyone = policies.organizations()
    assert {(tenant, "org-a"), (tenant, "org-b"), (f"{tenant}-2", "org-c")} <= set(everyone)
    assert everyone == sorted(everyone)


def test_a_tenant_takes_its_policies_with_it(
    policies: OrganizationPolicies, tenant: str, database: Database
) -> None:
    policies.put_aspect(tenant, "org-a", TONE)
    policies.set_defaults(tenant, "org-a", summary_aspects=["tone"])
    with database.session() as session, session.begin():
        session.execute(delete(Tenant).where(Tenant.name == tenant))
    assert (tenant, "org-a") not in policies.organizations()
    assert asyncio.run(policies.get(tenant, "org-a")) == OrganizationPolicy()


def _texts(aspect: CustomAspect, padding: str) -> tuple[str, str, str]:
    return (
        padding + aspect.instruction + padding,
        padding + aspect.example_conversation + padding,
        padding + aspect.example_answer + padding,
    )


def _aspect(**fields: str) -> CustomAspect:
    return CustomAspect(**{**TONE.__dict__, **fields})


@pytest.mark.parametrize(
    ("aspect", "message"),
    [
        (_aspect(name="1tone"), "name is a letter followed by up to 39 letters"),
        (_aspect(name="tone of voice"), "name is a letter followed by up to 39 letters"),
        (_aspect(name="t" * 41), "name is a letter followed by up to 39 letters"),
        (_aspect(name="NextSteps"), "'NextSteps' is a built-in aspect"),
        (_aspect(instruction=" \n"), "instruction must not be empty"),
        (_aspect(instruction="x" * 501), "instruction has at most 500 characters, got 501"),
        (_aspect(example_conversation=""), "example conversation must not be empty"),
        (_aspect(example_conversation="x" * 2001), "at most 2000 characters, got 2001"),
        (_aspect(example_answer=""), "example answer must not be empty"),
        (_aspect(example_answer="x" * 501), "example answer has at most 500 characters"),
    ],
)
def test_an_aspect_is_refused_with_what_to_fix(
    policies: OrganizationPolicies, tenant: str, aspect: CustomAspect, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        policies.put_aspect(tenant, "org-a", aspect)
    assert policies.policy(tenant, "org-a") == OrganizationPolicy()


def test_the_longest_of_everything_is_accepted(policies: OrganizationPolicies, tenant: str) -> None:
    longest = CustomAspect("t" * 40, "i" * 500, "c" * 2000, "a" * 500)
    policies.put_aspect(tenant, "org-a", longest)
    assert policies.policy(tenant, "org-a").custom_aspects == (longest,)


def test_at_most_ten_custom_aspects(policies: OrganizationPolicies, tenant: str) -> None:
    for number in range(10):
        policies.put_aspect(tenant, "org-a", _aspect(name=f"aspect{number}"))
    with pytest.raises(ValueError, match="at most 10 custom aspects and 'org-a' has 10"):
        policies.put_aspect(tenant, "org-a", _aspect(name="aspect10"))
    policies.put_aspect(tenant, "org-a", _aspect(name="aspect3", example_answer="Replaced."))
    policies.put_aspect(tenant, "org-b", _aspect(name="aspect10"))  # per organization


def test_names_differing_only_in_case_are_one_aspect(
    policies: OrganizationPolicies, tenant: str
) -> None:
    policies.put_aspect(tenant, "org-a", TONE)
    with pytest.raises(ValueError, match="'tone', which differs from 'Tone' only in case"):
        policies.put_aspect(tenant, "org-a", _aspect(name="Tone"))


def test_defaults_are_refused_with_what_to_fix(policies: OrganizationPolicies, tenant: str) -> None:
    policies.put_aspect(tenant, "org-a", TONE)
    with pytest.raises(ValueError, match=r"'mood' is not a summary aspect.*custom ones \(tone\)"):
        policies.set_defaults(tenant, "org-a", summary_aspects=["issue", "mood"])
    with pytest.raises(ValueError, match=r"'tone' is not a summary aspect.*\(none yet\)"):
        policies.set_defaults(tenant, "org-b", summary_aspects=["tone"])  # not org-b's
    with pytest.raises(ValueError, match="as a list, got 'issue'"):
        policies.set_defaults(tenant, "org-a", summary_aspects="issue")
    with pytest.raises(ValueError, match="'restore', 'mask' or 'off', got 'yes'"):
        policies.set_defaults(tenant, "org-a", redact_personal_data="yes")
    assert policies.organizations(tenant) == [(tenant, "org-a")]
    assert policies.policy(tenant, "org-a").summary_aspects == ()


def test_the_tenant_and_organization_must_be_valid(
    policies: OrganizationPolicies, tenant: str
) -> None:
    with pytest.raises(ValueError, match="There is no tenant 'nobody-here'"):
        policies.set_defaults("Nobody-Here", "org-a", redact_personal_data="mask")
    with pytest.raises(ValueError, match="There is no tenant 'nobody-here'"):
        policies.organizations("nobody-here")
    with pytest.raises(ValueError, match="must be a DNS label"):
        policies.put_aspect("not a label", "org-a", TONE)
    with pytest.raises(ValueError, match="organization id must not be empty"):
        policies.policy(tenant, " ")
    with pytest.raises(ValueError, match="at most 256 characters"):
        policies.remove_aspect(tenant, "o" * 257, "tone")


def test_built_in_aspects() -> None:
    assert BUILT_IN_ASPECTS[:4] == ("issue", "resolution", "resolutionStatus", "nextSteps")
    assert len(BUILT_IN_ASPECTS) == 9


def test_the_default_webhook_url(policies: OrganizationPolicies, tenant: str) -> None:
    url = "https://hooks.example.com/threadwise?source=jobs"
    kept = policies.set_defaults(tenant, "org-a", webhook_url=f"  {url} ")
    assert kept == OrganizationPolicy(webhook_url=url)
    assert policies.policy(tenant, "org-a").webhook_url == url
    assert policies.organizations(tenant) == [(tenant, "org-a")]  # a URL alone is stored
    both = policies.set_defaults(tenant, "org-a", redact_personal_data="mask")
    assert both.webhook_url == url  # not given: as it was
    assert policies.set_defaults(tenant, "org-a", webhook_url="").webhook_url is None
    policies.set_defaults(tenant, "org-a", redact_personal_data="off")
    assert policies.organizations(tenant) == []  # nothing is left stored
    for refused in ("ftp://hooks.example.com/", "hooks.example.com/x", "https://x/" + "a" * 2048):
        with pytest.raises(ValueError, match="starts with https://"):
            policies.set_defaults(tenant, "org-a", webhook_url=refused)
    assert policies.policy(tenant, "org-a") == OrganizationPolicy()


def test_experimental_languages_are_allowed_per_organization(
    policies: OrganizationPolicies, tenant: str
) -> None:
    assert not policies.policy(tenant, "org-a").experimental_languages  # refused by default
    allowed = policies.set_defaults(tenant, "org-a", experimental_languages=True)
    assert allowed == OrganizationPolicy(experimental_languages=True)
    assert policies.organizations(tenant) == [(tenant, "org-a")]  # stored alone
    kept = policies.set_defaults(tenant, "org-a", monthly_characters=1000)
    assert kept.experimental_languages  # not given: as it was
    policies.set_defaults(tenant, "org-a", experimental_languages=False, monthly_characters=0)
    assert policies.organizations(tenant) == []  # nothing is left stored
