"""The one admission of both transports, with a gate that records what it is asked."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from tests.conftest import minimal_body
from threadwise.auth.gate import Gatekeeper, Limits, Principal
from threadwise.auth.tokens import Claims
from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, validate
from threadwise.protocol import ErrorCode, MessageBody
from threadwise.serving.admission import Admission, Admitted
from threadwise.serving.operations import Operation
from threadwise.serving.records import RequestRecord

CALLER = Principal(
    Claims("default", "client-1", frozenset({"org-1"}), "", "token-1", 0.0), Limits(60, 10_000)
)


class RecordingGate:
    """Lets ``CALLER`` in for its organizations, and notes each step it is asked for."""

    def __init__(self) -> None:
        self.steps: list[tuple[Any, ...]] = []

    async def authenticate(self, token: str | None, host: str | None) -> Principal:
        self.steps.append(("authenticate", token))
        if token is None:
            raise ServiceError(ErrorCode.MISSING_TOKEN, "no token")
        return CALLER

    def authorize(self, principal: Principal, organization_id: str) -> None:
        self.steps.append(("authorize", organization_id))
        Gatekeeper.authorize(principal, organization_id)

    async def admit(
        self, principal: Principal, organization_id: str, characters: int, requests: int = 1
    ) -> None:
        self.steps.append(("admit", organization_id, characters, requests))
        if organization_id == "org-limited":
            raise ServiceError(ErrorCode.RATE_LIMITED, "over its limits", retry_after=3)


def admit(
    gate: RecordingGate,
    data: dict[str, Any],
    operation: Operation = "translate",
    token: str | None = "token-1",
    record: RequestRecord | None = None,
    limits: PayloadLimits | None = None,
) -> Admitted:
    async def read_body(_caller: Principal) -> MessageBody:
        gate.steps.append(("read",))
        return validate(MessageBody, data)

    admission = Admission(cast(Gatekeeper, gate), limits or PayloadLimits())
    record = record or RequestRecord.start("test")
    return asyncio.run(admission.admit(operation, token, "acme.example", read_body, record))


def test_a_translation_is_charged_once_per_target_language_and_once_per_request() -> None:
    gate = RecordingGate()
    data = minimal_body(settings={"targetLanguages": ["es", "fr", "de"]})
    record = RequestRecord.start("test")
    admitted = admit(gate, data, record=record)
    characters = 3 * len("My parcel 7781 is late.I have sent a new one today.")
    assert admitted.characters == characters and admitted.operation == "translate"
    assert admitted.caller is CALLER and admitted.body.request.context.organizationId == "org-1"
    assert gate.steps == [
        ("authenticate", "token-1"),
        ("read",),
        ("authorize", "org-1"),
        ("admit", "org-1", characters, 1),
    ]
    assert record.organization == "org-1"


def test_a_summary_is_charged_its_characters_once() -> None:
    data = minimal_body(settings={"targetLanguages": ["es", "fr", "de"]})
    assert admit(RecordingGate(), data, "summarize").characters == 51


def test_the_body_is_not_read_before_the_caller_is_known() -> None:
    gate = RecordingGate()
    with pytest.raises(ServiceError) as refused:
        admit(gate, minimal_body(), token=None)
    assert refused.value.code is ErrorCode.MISSING_TOKEN
    assert gate.steps == [("authenticate", None)]


def test_a_body_over_the_limits_is_refused_before_its_organization_is_looked_at() -> None:
    gate = RecordingGate()
    with pytest.raises(ServiceError) as refused:
        admit(gate, minimal_body(), limits=PayloadLimits(max_messages=1))
    assert refused.value.code is ErrorCode.PAYLOAD_TOO_LARGE
    assert gate.steps == [("authenticate", "token-1"), ("read",)]


def test_another_organization_is_refused_and_not_recorded() -> None:
    gate = RecordingGate()
    record = RequestRecord.start("test")
    with pytest.raises(ServiceError) as refused:
        admit(gate, minimal_body(context={"organizationId": "org-2"}), record=record)
    assert refused.value.code is ErrorCode.FORBIDDEN_ORGANIZATION
    assert record.organization is None
    assert gate.steps[-1] == ("authorize", "org-2")


def test_a_batch_is_admitted_each_job_on_its_own_and_its_rates_together() -> None:
    gate = RecordingGate()
    admission = Admission(cast(Gatekeeper, gate), PayloadLimits(max_conversations=1))

    def body(organization: str, conversations: int = 1) -> MessageBody:
        data = minimal_body(context={"organizationId": organization})
        first = data["request"]["scope"]["conversations"][0]
        data["request"]["scope"]["conversations"] = [first] * conversations
        return validate(MessageBody, data)

    earlier = ServiceError(ErrorCode.INVALID_JSON, "refused while read")
    caller = Principal(
        Claims("default", "client-1", frozenset({"org-1", "org-limited"}), "", "t", 0.0),
        Limits(60, 10_000),
    )
    answers = asyncio.run(
        admission.admit_each(
            caller,
            [
                ("summarize", body("org-1")),
                earlier,
                ("summarize", body("org-1")),
                ("summarize", body("org-1", conversations=2)),  # over the payload limits
                ("summarize", body("org-2")),  # not the caller's
                ("summarize", body("org-limited")),  # over its rate limits
            ],
        )
    )
    assert isinstance(answers[0], Admitted) and isinstance(answers[2], Admitted)
    assert answers[1] is earlier
    codes = [a.code for a in answers[3:] if isinstance(a, ServiceError)]
    assert codes == [
        ErrorCode.PAYLOAD_TOO_LARGE,
        ErrorCode.FORBIDDEN_ORGANIZATION,
        ErrorCode.RATE_LIMITED,
    ]
    characters = answers[0].characters
    # One step of the rate limits per organization, counting its jobs as requests.
    admits = [step for step in gate.steps if step[0] == "admit"]
    assert admits == [
        ("admit", "org-1", 2 * characters, 2),
        ("admit", "org-limited", characters, 1),
    ]
