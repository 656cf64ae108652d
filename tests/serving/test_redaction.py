"""Redaction around stand-in superpowers: what they receive, what the caller gets back."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis

from scripts.cluster import REDIS_VARIABLE
from tests.conftest import minimal_body, service_url
from tests.serving.test_operations import LIMITS, StandIn, operations
from tests.text.complexity import MAX_RATIO, doubling_ratio, report
from threadwise.cache import RedisCache
from threadwise.deadlines import Deadline
from threadwise.engines.apertium import ApertiumEngine
from threadwise.errors import ServiceError
from threadwise.payload import parse_message_body
from threadwise.protocol import ErrorCode, MessageBody, ResponseItem
from threadwise.serving.idempotency import RedisIdempotencyStore
from threadwise.serving.records import RequestRecord
from threadwise.serving.redaction import Redaction, Redactor
from threadwise.text.found import Found

TEXT = (
    "Hi, I'm Maya Chen. Refund card 4111 1111 1111 1111 and mail maya.chen@example.com; "
    "my husband Daniel Okafor lives at 221B Baker Street, London NW1 6XE."
)
EXAMPLES = Path(__file__).parents[2] / "examples"
PLANTED = ["4111 1111 1111 1111", "maya.chen@example.com", "Daniel Okafor", "221B Baker Street"]


class Names:
    """An analyzer that knows two first names (the real one is Apertium's)."""

    def analyzed_languages(self) -> frozenset[str]:
        return frozenset({"en"})

    def analyze(self, text: str, language: str) -> list[tuple[str, str]]:
        known = {"Daniel": "Daniel<np><ant><m><sg>", "Maya": "Maya<np><ant><f><sg>"}
        return [(w, known.get(w, f"{w.lower()}<n><sg>")) for w in text.split()]


class Echo(StandIn):
    """Answers with the first message it was given, as an engine would repeat it."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def __call__(  # type: ignore[override]  # a summary's items, not translations'
        self, body: MessageBody, on_partial: Any = None, *, scope: str = "", custom: Any = ()
    ) -> list[ResponseItem]:
        content = body.request.scope.conversations[0].messages[0].content
        self.seen.append(content)
        if on_partial is not None:
            on_partial(content)
        return [ResponseItem(content=content, engine="stand-in")]


def body(mode: Any, text: str = TEXT) -> MessageBody:
    data = minimal_body(settings={"redactPersonalData": mode})
    conversation = data["request"]["scope"]["conversations"][0]
    conversation["participants"] = [{"participantId": "p1", "displayName": "Maya Chen"}]
    conversation["messages"] = [{"participantId": "p1", "content": text}]
    return parse_message_body(data, LIMITS)


REDACTOR = Redactor(Names())


def run(
    mode: Any, redactor: Redactor | None = REDACTOR, text: str = TEXT
) -> tuple[Echo, str, list[str]]:
    power = Echo()
    ops = operations(power)
    ops.redactor = redactor
    drafts: list[str] = []

    async def scenario() -> Any:
        record = RequestRecord.start("rest")
        return await ops.run("summarize", body(mode, text), tenant="t", record=record,
                             on_partial=drafts.append)  # fmt: skip

    results = asyncio.run(scenario())
    return power, results[0][0].content, drafts


@pytest.mark.parametrize("mode", ["restore", True])
def test_the_engine_sees_placeholders_and_the_caller_the_values(mode: Any) -> None:
    power, answer, drafts = run(mode)
    [seen] = power.seen
    assert not any(value in seen for value in PLANTED), seen
    assert "[CARD_1]" in seen and "[EMAIL_1]" in seen and "[PERSON_1]" in seen
    assert "[ADDRESS_1]" in seen
    assert "Maya Chen" in seen  # a participant's own name is kept
    assert answer == TEXT and drafts == [TEXT]


# Values as the outside probe wrote them (issue 25, item 7): full-width digits, zero-width
# characters inside, dashes, spelled out, digits one by one.
DISGUISED = (
    "Hi, I'm Maya Chen. Refund card \uff14\uff11\uff11\uff11\u200b \uff11\uff11\uff11\uff11 "
    "1111\u00a01111 or DE89-3704-0044-0532-0130-00, mail maya.chen\u200b@example.com or "
    "maya dot chen at example dot com, call 4 1 5 5 5 5 2 6 7 1; my husband Dan\u200biel Okafor."
)


def test_values_in_other_forms_are_masked_whole_and_restored_exactly() -> None:
    power, answer, drafts = run("restore", text=DISGUISED)
    [seen] = power.seen
    assert seen == (
        "Hi, I'm Maya Chen. Refund card [CARD_1] or [IBAN_1], mail [EMAIL_1] or [EMAIL_2], "
        "call [PHONE_1]; my husband [PERSON_1]."
    )
    assert answer == DISGUISED and drafts == [DISGUISED]


def test_the_caches_and_the_idempotency_store_keep_only_placeholders(
    caplog: pytest.LogCaptureFixture,
) -> None:
    power = Echo()
    ops = operations(power)
    ops.redactor = REDACTOR

    async def scenario() -> Any:
        record = RequestRecord.start("rest")
        answer = await ops.run(
            "summarize", body("restore"), tenant="t", record=record, idempotency_key="k-1"
        )
        record.finish(None)
        return answer

    with caplog.at_level("DEBUG"):
        [[item]] = asyncio.run(scenario())
    assert item.content == TEXT
    stored = [
        repr(ops.results._entries),  # type: ignore[attr-defined]
        repr(ops.idempotency._entries),  # type: ignore[attr-defined]
        caplog.text,
    ]
    assert "[EMAIL_1]" in stored[0] and "[EMAIL_1]" in stored[1]
    for value in PLANTED:
        assert not any(value in text for text in stored), value


@pytest.mark.parametrize("mode", ["mask", "restore"])
def test_an_idempotency_key_tells_requests_apart_by_what_redaction_replaces(mode: str) -> None:
    """Two bodies that differ only in an e-mail address redact alike, yet are two requests."""
    power = Echo()
    ops = operations(power)
    ops.redactor = REDACTOR
    other = body(mode, TEXT.replace("maya.chen@example.com", "m.chen@example.org"))

    async def send(request: MessageBody) -> Any:
        record = RequestRecord.start("rest")
        return await ops.run("summarize", request, tenant="t", record=record, idempotency_key="k-1")

    async def scenario() -> None:
        first = await send(body(mode))
        assert await send(body(mode)) == first
        with pytest.raises(ServiceError) as refused:
            await send(other)
        assert refused.value.code is ErrorCode.IDEMPOTENCY_KEY_REUSED

    asyncio.run(scenario())
    assert len(power.seen) == 1


def test_mask_keeps_the_placeholders() -> None:
    power, answer, drafts = run("mask")
    assert answer == power.seen[0] and drafts == [answer]
    assert not any(value in answer for value in PLANTED)


def test_without_the_setting_nothing_changes() -> None:
    power, answer, _ = run(None)
    assert power.seen == [TEXT] and answer == TEXT


class Broken(Names):
    def analyze(self, text: str, language: str) -> list[tuple[str, str]]:
        raise OSError("the analyzer died")


@pytest.mark.parametrize("redactor", [Redactor(Broken()), None])
def test_redaction_fails_closed(redactor: Redactor | None) -> None:
    with pytest.raises(ServiceError) as refused:
        run("restore", redactor)
    assert refused.value.code is ErrorCode.PROCESSING_FAILED


def test_the_example_request_is_redacted() -> None:
    """examples/summarize-redacted-request.json, through the real analyzers."""
    data = json.loads((EXAMPLES / "summarize-redacted-request.json").read_text())
    example = parse_message_body(data, LIMITS)
    engine = ApertiumEngine(["en", "es", "fr", "pt"])
    try:
        redaction = Redactor(engine).redact(example)
    finally:
        engine.close()
    assert redaction is not None and redaction.mode == "restore"
    last = redaction.body.request.scope.conversations[0].messages[-1].content
    assert last == (
        "You can reach me on [PHONE_1] or [EMAIL_1], and my neighbour [PERSON_1] can sign for "
        "it at [ADDRESS_1]."
    )


def test_the_redis_stores_keep_only_placeholders() -> None:
    """The same, with the stores replicas share (the test server of with-services.sh)."""
    url = service_url(REDIS_VARIABLE)
    prefix = f"threadwise:test:{uuid.uuid4().hex}:"
    power = Echo()
    ops = operations(power)
    ops.redactor = REDACTOR
    ops.results = RedisCache(url, prefix + "results:")
    ops.idempotency = RedisIdempotencyStore(url, 60, prefix=prefix + "idem:")

    async def scenario() -> Any:
        record = RequestRecord.start("rest")
        return await ops.run(
            "summarize", body("restore"), tenant="t", record=record, idempotency_key="k-1"
        )

    [[item]] = asyncio.run(scenario())
    assert item.content == TEXT
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        stored = []
        for key in client.scan_iter(f"{prefix}*"):
            kind = client.type(key)
            value = client.hgetall(key) if kind == "hash" else client.get(key)
            stored.append(f"{key!s} {value!r}")
        assert len(stored) >= 2, stored  # a result and an idempotency record
        assert all("[EMAIL_1]" in text for text in stored if "results:" in text)
        for value in PLANTED:
            assert not any(value in text for text in stored), value
    finally:
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
        client.close()
        ops.results.close()
        ops.idempotency.close()


def conversation_of(texts: list[str]) -> MessageBody:
    data = minimal_body(settings={"redactPersonalData": "mask"})
    conversation = data["request"]["scope"]["conversations"][0]
    conversation["messages"] = [{"participantId": "c", "content": text} for text in texts]
    return parse_message_body(data, LIMITS)


class Watched(Redactor):
    """Counts the messages it looks into; the first waits until the test lets it go on."""

    def __init__(self, regions: tuple[str, ...] = ("US", "GB", "ES")) -> None:
        super().__init__(Names(), regions)
        self.scanned = 0
        self.started = threading.Event()
        self.go_on = threading.Event()
        self.ended = threading.Event()

    def redact(self, *args: Any, **kwargs: Any) -> Redaction | None:
        try:
            return super().redact(*args, **kwargs)
        finally:
            self.ended.set()

    def _find(self, text: str, *args: Any, **kwargs: Any) -> list[Found]:
        self.scanned += 1
        self.started.set()
        self.go_on.wait(10)
        return super()._find(text, *args, **kwargs)


class PassedOnceStarted(Deadline):
    """A deadline that passes as soon as ``redactor`` looks into its first message."""

    def __init__(self, redactor: Watched) -> None:
        super().__init__(60)
        self.redactor = redactor

    def remaining(self) -> float:
        return 0.0 if self.redactor.started.is_set() else 60.0


def test_redaction_stops_at_the_deadline_within_a_huge_message() -> None:
    redactor = Watched()
    redactor.go_on.set()
    digits = conversation_of(["1234 " * 6400] * 20)  # 20 messages of 32,000 characters
    with pytest.raises(ServiceError) as stopped:
        redactor.redact(digits, PassedOnceStarted(redactor))
    assert stopped.value.code is ErrorCode.REQUEST_TIMEOUT
    assert redactor.scanned == 1  # it stopped inside the first message


def test_redaction_stops_when_its_caller_goes() -> None:
    redactor = Watched()
    ops = operations(Echo())
    ops.redactor = redactor

    async def scenario() -> None:
        record = RequestRecord.start("rest")
        task = asyncio.ensure_future(
            ops.run("translate", conversation_of([TEXT] * 5), tenant="t", record=record)
        )
        await asyncio.to_thread(redactor.started.wait, 10)
        task.cancel()  # as the client going away does (api/work.py)
        with pytest.raises(asyncio.CancelledError):
            await task
        redactor.go_on.set()
        assert await asyncio.to_thread(redactor.ended.wait, 10)

    asyncio.run(scenario())
    assert redactor.scanned == 1  # the other four messages were never looked into


def test_a_text_with_many_finds_and_names_is_redacted_in_linear_time() -> None:
    redactor = Redactor(Names(), regions=())
    ratio, timings = doubling_ratio(
        redactor.find, lambda size: "Daniel 4111 1111 1111 1111, " * (size // 28)
    )
    assert ratio <= MAX_RATIO, f"{ratio:.1f} times as long per doubling ({report(timings)})"
