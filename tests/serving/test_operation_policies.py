"""Organizations' policies around stand-in superpowers: defaults applied, redaction kept on,
custom aspects handed on and part of the cache key, failures closed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.serving.test_operations import StandIn, operations
from tests.serving.test_redaction import PLANTED, REDACTOR, body
from threadwise.errors import ServiceError
from threadwise.organizations.aspects import CustomAspect
from threadwise.organizations.policies import OrganizationPolicy
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.serving.records import RequestRecord

TONE = CustomAspect("tone", "Say how the agent sounded.", "Bo: Sorry!", "Apologetic.")


class Policies:
    """The store's ``get``, answering from a dict (the store itself: test_policies.py)."""

    def __init__(self, policy: OrganizationPolicy | Exception) -> None:
        self.policy = policy
        self.asked: list[tuple[str, str]] = []

    async def get(self, tenant: str, organization: str) -> OrganizationPolicy:
        self.asked.append((tenant, organization))
        if isinstance(self.policy, Exception):
            raise self.policy
        return self.policy


class Recorder(StandIn):
    """Records the bodies and custom aspects it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[MessageBody] = []
        self.custom: list[Any] = []

    async def __call__(  # type: ignore[override]  # a summary's items
        self, body: MessageBody, on_partial: Any = None, *, scope: str = "", custom: Any = ()
    ) -> list[ResponseItem]:
        self.calls += 1
        self.bodies.append(body)
        self.custom.append(custom)
        content = body.request.scope.conversations[0].messages[0].content
        return [ResponseItem(content=content, engine="stand-in")]


def run(
    policy: OrganizationPolicy | Exception, mode: Any = None, aspects: Any = None, times: int = 1
) -> tuple[Recorder, Policies, list[str]]:
    power = Recorder()
    ops = operations(power)
    ops.redactor = REDACTOR
    policies = Policies(policy)
    ops.policies = policies  # type: ignore[assignment]
    request = body(mode)
    if aspects is not None:
        settings = request.request.settings.model_copy(update={"summaryAspects": aspects})
        request = request.model_copy(
            update={"request": request.request.model_copy(update={"settings": settings})}
        )
    answers = []

    async def scenario() -> None:
        for _ in range(times):
            record = RequestRecord.start("rest")
            results = await ops.run("summarize", request, tenant="acme", record=record)
            answers.append(results[0][0].content)

    asyncio.run(scenario())
    return power, policies, answers


def test_the_organization_is_asked_for_its_policy_by_tenant() -> None:
    _, policies, _ = run(OrganizationPolicy())
    assert policies.asked == [("acme", "org-1")]


def test_the_default_aspects_apply_when_the_request_names_none() -> None:
    policy = OrganizationPolicy(summary_aspects=("issue", "tone"), custom_aspects=(TONE,))
    power, _, _ = run(policy)
    assert power.bodies[0].request.settings.summaryAspects == ["issue", "tone"]
    assert power.custom == [(TONE,)]
    power, _, _ = run(policy, aspects=["recap"])
    assert power.bodies[0].request.settings.summaryAspects == ["recap"]


@pytest.mark.parametrize(
    ("asked", "applied"), [(None, "mask"), (False, "mask"), ("restore", "restore")]
)
def test_a_redaction_policy_applies_and_cannot_be_turned_off(asked: Any, applied: str) -> None:
    power, _, answers = run(OrganizationPolicy(redact_personal_data="mask"), mode=asked)
    seen = power.bodies[0].request.scope.conversations[0].messages[0].content
    assert not any(value in seen for value in PLANTED)
    assert power.bodies[0].request.settings.redactPersonalData == applied
    restored = all(value in answers[0] for value in PLANTED)
    assert restored is (applied == "restore")


def test_a_changed_custom_aspect_is_not_answered_from_the_cache() -> None:
    policy = OrganizationPolicy(summary_aspects=("tone",), custom_aspects=(TONE,))
    power, _, _ = run(policy, times=2)
    assert power.calls == 1  # the second from the result cache
    ops = operations(power)
    changed = CustomAspect("tone", "Say it in one word.", "Bo: Sorry!", "Sorry.")
    for aspect in (TONE, changed):
        ops.policies = Policies(  # type: ignore[assignment]
            OrganizationPolicy(summary_aspects=("tone",), custom_aspects=(aspect,))
        )
        asyncio.run(
            ops.run("summarize", body(None), tenant="acme", record=RequestRecord.start("rest"))
        )
    assert power.calls == 3


def test_policies_that_cannot_be_read_fail_closed() -> None:
    with pytest.raises(ServiceError) as failed:
        run(ConnectionError("database down"))
    assert failed.value.code is ErrorCode.PROCESSING_FAILED
    assert "nothing of this request was sent" in failed.value.message
