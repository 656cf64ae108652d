"""Let a superpower request in, whatever its transport: who calls, its body within the
limits, its organization the caller's, its rates not exceeded.

REST runs it as a dependency of each superpower route (``api/deps.py``), the WebSocket
session for each request frame (``api/socket/session.py``); only how the body is read
differs, and that the transport passes in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from threadwise.auth.gate import Gatekeeper, Principal
from threadwise.errors import ServiceError
from threadwise.payload import PayloadLimits, charged_characters, check_limits
from threadwise.protocol import MessageBody
from threadwise.serving.operations import Operation
from threadwise.serving.records import RequestRecord


@dataclass(frozen=True)
class Admitted:
    """A superpower request let in: who sent it, its body, and what it was charged."""

    operation: Operation
    caller: Principal
    body: MessageBody
    # What the organization's character rate counted; its monthly quota counts the same.
    characters: int


class Admission:
    def __init__(self, gate: Gatekeeper, limits: PayloadLimits) -> None:
        self.gate = gate
        self.limits = limits

    async def admit(
        self,
        operation: Operation,
        token: str | None,
        host: str | None,
        read_body: Callable[[Principal], Awaitable[MessageBody]],
        record: RequestRecord,
    ) -> Admitted:
        """The caller (401 before the body is read or any work is done), then the body read
        by ``read_body`` (given the caller: a compatible API's request names no organization),
        once it is within the payload limits, its organization is the caller's, and the
        organization within its rate limits."""
        caller = await self.gate.authenticate(token, host)
        body = await read_body(caller)
        check_limits(body, self.limits)
        organization = body.request.context.organizationId
        self.gate.authorize(caller, organization)
        # Only once authorized is the organization more than a claim: the requests then
        # refused for its rate limits are counted by it.
        record.organization = organization
        characters = charged_characters(body, operation)
        await self.gate.admit(caller, organization, characters)
        return Admitted(operation, caller, body, characters)

    async def admit_each(
        self, caller: Principal, requests: Sequence[tuple[Operation, MessageBody] | ServiceError]
    ) -> list[Admitted | ServiceError]:
        """Several requests of an authenticated ``caller`` (a batch of jobs), each let in or
        refused as ``admit`` would (a request already refused stays so); an organization's
        rate limits take its requests together, all or none."""
        answers: list[Admitted | ServiceError] = []
        for request in requests:
            if isinstance(request, ServiceError):
                answers.append(request)
                continue
            operation, body = request
            try:
                check_limits(body, self.limits)
                self.gate.authorize(caller, body.request.context.organizationId)
            except ServiceError as exc:
                answers.append(exc)
                continue
            answers.append(Admitted(operation, caller, body, charged_characters(body, operation)))
        by_organization: dict[str, list[tuple[int, Admitted]]] = {}
        for index, answer in enumerate(answers):
            if isinstance(answer, Admitted):
                organization = answer.body.request.context.organizationId
                by_organization.setdefault(organization, []).append((index, answer))
        for organization, admitted in by_organization.items():
            characters = sum(answer.characters for _, answer in admitted)
            try:
                await self.gate.admit(caller, organization, characters, requests=len(admitted))
            except ServiceError as exc:
                for index, _ in admitted:
                    answers[index] = exc
        return answers
