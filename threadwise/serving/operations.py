"""The superpowers as every transport calls them: shutdown admission, the organization's
quota, idempotency keys, the result cache, the request record and the usage around the
operation itself.

REST routes and the WebSocket endpoint both call ``Operations.run`` and render what it
returns (or raises) in their own framing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any, Literal, TypeVar

import anyio.to_thread

from threadwise.cache import Cache
from threadwise.deadlines import Deadline
from threadwise.engines.metering import metering
from threadwise.errors import ServiceError
from threadwise.metrics import Metrics
from threadwise.organizations.aspects import CustomAspect
from threadwise.organizations.glossaries import GlossaryStore, OrganizationTerms
from threadwise.organizations.policies import OrganizationPolicies, OrganizationPolicy
from threadwise.organizations.usage import QuotaReached, Reservation, UsageStore
from threadwise.organizations.usage_days import next_month, utc_day
from threadwise.payload import character_count, charged_characters
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.serving.idempotency import Claim, IdempotencyStore
from threadwise.serving.lifecycle import Lifecycle
from threadwise.serving.records import RequestRecord, engine_kind
from threadwise.serving.redaction import Redaction, Redactor
from threadwise.superpowers.summarize import SummarizeSuperpower
from threadwise.superpowers.translate import TranslateSuperpower
from threadwise.text.terms import Glossary, Term

log = logging.getLogger(__name__)
T = TypeVar("T")

Operation = Literal["summarize", "translate"]
Results = list[list[ResponseItem]]

# A claimed idempotency key is held this long at a time, renewed while its request runs: a
# replica killed mid-request lets go of its keys within this, and a retry does the work.
LEASE_SECONDS = 10.0


class Operations:
    def __init__(
        self,
        *,
        summarize: SummarizeSuperpower,
        translate: TranslateSuperpower,
        lifecycle: Lifecycle,
        idempotency: IdempotencyStore,
        results: Cache,
        results_ttl_seconds: float,
        version: str,
        metrics: Metrics | None = None,
        redactor: Redactor | None = None,
        policies: OrganizationPolicies | None = None,
        glossaries: GlossaryStore | None = None,
        usage: UsageStore | None = None,
        held_by_jobs: Callable[[str, str], Awaitable[int]] | None = None,
    ) -> None:
        self.summarize = summarize
        self.translate = translate
        self.lifecycle = lifecycle
        self.idempotency = idempotency
        self.results = results
        self.results_ttl_seconds = results_ttl_seconds
        # Everything besides the request that decides an answer: engines, models, settings.
        self.version = version
        self.metrics = metrics
        self.redactor = redactor
        self.policies = policies
        self.glossaries = glossaries
        self.usage = usage
        # The characters an organization's unfinished jobs hold against its monthly quota.
        self.held_by_jobs = held_by_jobs

    async def run(
        self,
        operation: Operation,
        body: MessageBody,
        *,
        tenant: str,
        record: RequestRecord,
        idempotency_key: str | None = None,
        on_partial: Callable[[str], None] | None = None,
        charged: int | None = None,
        quota_held: bool = False,
    ) -> Results:
        """Answer ``body`` for the caller's ``tenant``, under its organization's policies;
        tenant and organization keep caches and keys apart. ``on_partial`` gets a summary's
        draft as the model writes it (not when the answer comes from a cache or an earlier
        request with the key).

        A request answered counts in its organization's usage: one request, its message
        characters (a translation's once per target language, as the character rate limit
        counts them) and the model tokens its work spent, which are none for an answer from
        the result cache. Its characters (``charged``, as admission counted them) are held
        against the monthly quota while it runs (checked then, unless ``quota_held``: a job's
        part, whose characters its job has held since it was submitted). A
        failed request counts nothing, nor does the answer of an earlier request with the key
        (it was counted then), which is given even once the quota is spent."""
        organization = body.request.context.organizationId
        scope = f"{tenant}:{organization}"
        record.operation = operation
        record.organization = organization
        record.messages = sum(len(c.messages) for c in body.request.scope.conversations)
        record.characters = character_count(body)
        characters = charged_characters(body, operation) if charged is None else charged
        # The request as it came: a policy's defaults or redaction must not make two
        # different requests (say, two e-mail addresses) one.
        fingerprint = (
            ""
            if idempotency_key is None
            else digest({"operation": operation, "body": canonical_body(body)})
        )
        try:
            async with self.lifecycle.working():
                policy = await self.policy(tenant, organization)
                body = with_policy(body, policy, operation)
                redaction = await self._redact(operation, body)
                if redaction is not None:
                    body, on_partial = redaction.body, redaction.partial(on_partial)
                    record.redacted = redaction.count
                terms = await self._terms(tenant, organization, operation)
                answer = _Answer(
                    operation,
                    body,
                    scope,
                    record,
                    on_partial,
                    policy.custom_aspects,
                    _applicable(terms, body.request.settings.glossaryId),
                    terms.do_not_translate,
                    policy.experimental_languages,
                )
                quota = None if quota_held else policy.monthly_characters
                charge = _Charge(tenant, organization, characters, quota)
                if idempotency_key is None:
                    results = await self._charged(answer, charge)
                else:
                    results = await self._once(answer, charge, idempotency_key, fingerprint)
                return results if redaction is None else redaction.results(results)
        except ServiceError as exc:
            record.failed_with(exc)
            raise

    async def _charged(self, answer: _Answer, charge: _Charge) -> Results:
        """``answer``, its characters held against the organization's monthly quota from
        before the work until it is counted, or let go if it fails or is cancelled."""
        reservation = await self._reserve(charge)
        try:
            with metering() as meter:
                results = await self._answer(answer)
        except BaseException:
            if reservation is not None:
                reservation.release()
            raise
        if reservation is not None:
            reservation.settle(answer.operation, meter.prompt_tokens, meter.completion_tokens)
        return results

    async def check(
        self, operation: Operation, body: MessageBody, *, tenant: str
    ) -> OrganizationPolicy:
        """Refuse ``body`` now if running it would be refused before any engine (its
        languages, settings, glossary), under its organization's policies; those policies."""
        organization = body.request.context.organizationId
        policy = await self.policy(tenant, organization)
        checked = with_policy(body, policy, operation)
        if operation == "summarize":
            self.summarize.check(checked, policy.custom_aspects)
            return policy
        terms = await self._terms(tenant, organization, operation)
        glossaries = _applicable(terms, checked.request.settings.glossaryId)
        self.translate.check(
            checked, glossaries, terms.do_not_translate, policy.experimental_languages
        )
        return policy

    async def check_quota(
        self, tenant: str, organization: str, characters: int, quota: int | None
    ) -> None:
        """Refuse (``QUOTA_EXCEEDED``) ``characters`` more that would take the organization
        past ``quota``, counting what it used and what its requests and jobs hold; hold
        nothing (a job's characters are held by its record)."""
        reservation = await self._reserve(_Charge(tenant, organization, characters, quota))
        if reservation is not None:
            reservation.release()

    async def _reserve(self, charge: _Charge) -> Reservation | None:
        """The request's characters held, or the request refused whole (``QUOTA_EXCEEDED``)
        if they would take the organization past its monthly quota; fails closed."""
        if self.usage is None:
            return None
        quota, characters = charge.quota, charge.characters
        now = self.usage.now()
        by_jobs = 0
        if quota is not None and self.held_by_jobs is not None:
            jobs = self.held_by_jobs(charge.tenant, charge.organization)
            by_jobs = await _read_or_refuse("jobs", jobs)
        reserving = self.usage.reserve(
            charge.tenant, charge.organization, characters, quota, now, held_elsewhere=by_jobs
        )
        held = await _read_or_refuse("usage", reserving)
        if not isinstance(held, QuotaReached):
            return held
        assert quota is not None  # without one, everything fits
        resets = next_month(utc_day(now))
        name = f"organization {charge.organization[:256]!r}"
        if characters > quota:
            raise ServiceError(
                ErrorCode.QUOTA_EXCEEDED,
                f"This request needs {characters} characters, more than the monthly quota of "
                f"{name} ({quota}); nothing of it was done. Send it in smaller requests.",
                reason="quota_exceeded",
            )
        reset_at = datetime.combine(resets, time(), UTC)
        raise ServiceError(
            ErrorCode.QUOTA_EXCEEDED,
            f"The {name} has used {held.used} of its {quota} characters this month (UTC), "
            f"and this request needs {characters} more; nothing of it was done. The quota "
            f"starts again on {resets.isoformat()}: retry then, or ask for a larger quota.",
            retry_after=(reset_at - now).total_seconds(),
            reason="quota_exceeded",
        )

    async def _redact(self, operation: Operation, body: MessageBody) -> Redaction | None:
        """The body with its personal data replaced, when it asks (fails closed), within the
        request's deadline; the work stops soon after its caller goes."""
        if Redactor.mode(body) is None:
            return None
        if self.redactor is None:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                "This server cannot redact personal data, so nothing of this request was "
                "sent to an engine.",
            )
        redactor = self.redactor
        deadline = Deadline(self._deadline_seconds(operation, body))
        try:
            return await anyio.to_thread.run_sync(
                lambda: redactor.redact(body, deadline), abandon_on_cancel=True
            )
        except asyncio.CancelledError:
            deadline.cancel()  # a thread cannot be stopped from outside: it stops at a check
            raise

    async def policy(self, tenant: str, organization: str) -> OrganizationPolicy:
        """The organization's policies; fails closed (one may be to redact)."""
        if self.policies is None:
            return OrganizationPolicy()
        return await _read_or_refuse("policies", self.policies.get(tenant, organization))

    async def _terms(
        self, tenant: str, organization: str, operation: Operation
    ) -> OrganizationTerms:
        """A translation's glossaries and do-not-translate terms; fails closed."""
        if self.glossaries is None or operation != "translate":
            return OrganizationTerms()
        reading = self.glossaries.for_translation(tenant, organization)
        return await _read_or_refuse("glossaries", reading)

    async def _once(self, answer: _Answer, charge: _Charge, key: str, fingerprint: str) -> Results:
        """The answer of an earlier request with ``key`` (before the quota is looked at, and
        not charged: it was when it was answered), or ``answer`` charged."""
        operation, body, record = answer.operation, answer.body, answer.record
        seconds = self._deadline_seconds(operation, body)
        claim = await self.idempotency.claim(
            answer.scope, key, fingerprint, wait_seconds=seconds, lease_seconds=LEASE_SECONDS
        )
        if claim.answer is not None:
            record.idempotency = "replayed"
            self._count("idempotency", "replayed")
            return _decode(claim.answer)
        record.idempotency = "waited then new" if claim.waited else "new"
        self._count("idempotency", "new")
        try:
            async with self._holding(claim):
                results = await self._charged(answer, charge)
        except ServiceError as exc:
            await self._end_failed(claim, exc)
            raise
        except BaseException:
            await self.idempotency.release(claim)  # cancelled: a retry does the work
            raise
        await self.idempotency.complete(claim, _encode(results))
        return results

    @asynccontextmanager
    async def _holding(self, claim: Claim) -> AsyncIterator[None]:
        """Renew the claim's lease while the work runs."""

        async def renew() -> None:
            while True:
                await asyncio.sleep(LEASE_SECONDS / 3)
                if not await self.idempotency.renew(claim, LEASE_SECONDS):
                    log.warning(
                        "the idempotency key %r expired while its request ran; a retry "
                        "with it may run the request again",
                        claim.key[:64],
                    )
                    return

        renewing = asyncio.ensure_future(renew())
        try:
            yield
        finally:
            renewing.cancel()

    async def _end_failed(self, claim: Claim, error: ServiceError) -> None:
        # A retryable failure is not the answer: a retry with the same key tries again. Nor is
        # the quota's refusal: nothing was done, and a retry once the quota allows does it.
        if error.code.retryable or error.code in (
            ErrorCode.REQUEST_CANCELLED,
            ErrorCode.QUOTA_EXCEEDED,
        ):
            await self.idempotency.release(claim)
        else:
            await self.idempotency.complete(
                claim, {"error": {"code": error.code.value, "message": error.message}}
            )

    async def _answer(self, answer: _Answer) -> Results:
        operation, body, record = answer.operation, answer.body, answer.record
        caching = self.results_ttl_seconds > 0
        key = (
            digest(
                {"scope": answer.scope, "version": self.version, "operation": operation}
                | cache_content(body)
                | {"custom": [dataclasses.astuple(c) for c in answer.custom]}
                | {"terms": [_applied(g) for g in answer.glossaries]}
                | {"keep": [dataclasses.astuple(t) for t in answer.keep]}
                | {"experimental": answer.experimental}
            )
            if caching
            else ""
        )
        cached = await self.results.get(key) if caching else None
        if cached is not None:
            self._count("result", "hit")
            record.cache = "hit"
            results = _decode(cached)
        else:
            self._count("result", "miss")
            if operation == "summarize":
                results = [
                    await self.summarize(
                        body, answer.on_partial, scope=answer.scope, custom=answer.custom
                    )
                ]
            else:
                results = await self.translate(
                    body, answer.glossaries, answer.keep, answer.experimental
                )
            fallback = any("fallback" in (i.engine or "") for items in results for i in items)
            if caching and not fallback:
                # A fallback answer is what a busy moment gave, not what to keep giving.
                await self.results.put(key, _encode(results), self.results_ttl_seconds)
        engines = [i.engine for items in results for i in items if i.engine]
        record.engine = engine_kind(next((e for e in engines if e != "none"), "none"))
        return results

    def _deadline_seconds(self, operation: Operation, body: MessageBody) -> float:
        power = self.summarize if operation == "summarize" else self.translate
        return power.deadlines.seconds(character_count(body))

    def _count(self, cache: str, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.cache.labels(cache, outcome).inc()


async def _read_or_refuse(what: str, reading: Awaitable[T]) -> T:
    """What ``reading`` reads of the organization; if it cannot, the request is refused
    before any engine sees it (what it reads may be to redact, or terms to keep)."""
    try:
        return await reading
    except Exception as exc:
        log.exception("reading the organization's %s failed", what)
        raise ServiceError(
            ErrorCode.PROCESSING_FAILED,
            f"The organization's {what} could not be read, so nothing of this request was "
            "sent to an engine. Retry the request.",
        ) from exc


@dataclass(frozen=True)
class _Charge:
    """What a request is charged, and the monthly quota it must fit (None: no quota)."""

    tenant: str
    organization: str
    characters: int
    quota: int | None


@dataclass(frozen=True)
class _Answer:
    """One request's work, as ``run`` hands it on."""

    operation: Operation
    body: MessageBody
    scope: str  # tenant and organization
    record: RequestRecord
    on_partial: Callable[[str], None] | None
    custom: tuple[CustomAspect, ...]  # the organization's own summary aspects
    glossaries: tuple[Glossary, ...] = ()  # translate: the ones that may apply
    keep: tuple[Term, ...] = ()  # translate: the organization's do-not-translate terms
    experimental: bool = False  # translate: its policy allows experimental directions


def _applicable(terms: OrganizationTerms, glossary_id: str | None) -> tuple[Glossary, ...]:
    """The glossaries a translation may use: the one asked for and the defaults."""
    return tuple(g for g in terms.glossaries if g.default or g.glossary_id == glossary_id)


def with_policy(body: MessageBody, policy: OrganizationPolicy, operation: Operation) -> MessageBody:
    """``body`` with its organization's defaults where it sets nothing: the summary aspects,
    and the redaction of personal data, which a request may choose ("restore" or "mask")
    but not turn off."""
    settings = body.request.settings
    update: dict[str, Any] = {}
    if policy.redact_personal_data and not settings.redactPersonalData:
        update["redactPersonalData"] = policy.redact_personal_data
    if operation == "summarize" and policy.summary_aspects and not settings.summaryAspects:
        update["summaryAspects"] = list(policy.summary_aspects)
    if not update:
        return body
    request = body.request.model_copy(update={"settings": settings.model_copy(update=update)})
    return body.model_copy(update={"request": request})


def canonical_body(body: MessageBody) -> dict[str, Any]:
    """The body as parsed (unknown keys dropped), with timestamps as the caller wrote them."""
    dumped = body.model_dump(mode="json")
    dumped["timestamps"] = _timestamps(body)
    return dumped


def cache_content(body: MessageBody) -> dict[str, Any]:
    """What decides an answer: conversations, languages, settings and the variant (which
    picks the engine profile); not the request's IDs."""
    request = body.request
    variant = request.attributes.variant
    return {
        "conversations": [c.model_dump(mode="json") for c in request.scope.conversations],
        "timestamps": _timestamps(body),
        "settings": request.settings.model_dump(mode="json", exclude={"disableStream"}),
        "channel": body.session.channel.language,
        "variant": variant.strip().casefold() if variant else None,
    }


def _timestamps(body: MessageBody) -> list[str | None]:
    # Echoed exactly in translations: part of the answer.
    return [m.timestamp_text for c in body.request.scope.conversations for m in c.messages]


def _applied(glossary: Glossary) -> tuple[Any, ...]:
    """What of a glossary decides a translation (not its name or creation time)."""
    entries = [dataclasses.astuple(term) for term in glossary.entries]
    return (glossary.glossary_id, glossary.source_language, glossary.target_language, entries)


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _encode(results: Results) -> dict[str, Any]:
    return {"results": [[i.model_dump(mode="json", exclude_none=True) for i in r] for r in results]}


def _decode(stored: Any) -> Results:
    if "error" in stored:
        error = stored["error"]
        raise ServiceError(ErrorCode(error["code"]), error["message"])
    return [[ResponseItem.model_validate(i) for i in r] for r in stored["results"]]
