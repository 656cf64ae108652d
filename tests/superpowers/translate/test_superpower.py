"""The translate operation with the real engines: fallback, deadlines, the fast queue."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tests.conftest import eventually, until
from tests.superpowers.translate.requests import body
from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.engines.profiles import Profiles
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.services import Services
from threadwise.superpowers.translate import QueuedTranslator, TranslateSuperpower
from threadwise.work_queue import Scheduler

pytestmark = pytest.mark.usefixtures("loaded_engines")


def test_quality_falls_back_to_the_fast_engine_when_the_model_is_busy(services: Services) -> None:
    busy = Scheduler(capacity=1, name="busy-llm")
    release = threading.Event()
    pool = Scheduler(capacity=8, name="fast", workers=2)
    deadlines = DeadlinePolicy(base=3, per_thousand_characters=0, ceiling=3)
    superpower = TranslateSuperpower(
        Profiles(QueuedTranslator(services.default_translator, busy)), pool, deadlines
    )

    async def scenario() -> list[Any]:
        blocker = asyncio.ensure_future(busy.run(release.wait, Deadline(60)))
        await until(lambda: busy.depth > 0)
        try:
            return await superpower(body(["Please send me the invoice."], targetLanguages=["es"]))
        finally:
            release.set()
            await blocker

    [[item]] = asyncio.run(scenario())
    assert item.engine.startswith("apertium:eng-spa (fast fallback:"), item.engine
    assert item.sourceLanguage == "en" and item.targetLanguage == "es"
    busy.shutdown()
    pool.shutdown()


def fast_pool(workers: int = 2) -> Scheduler:
    """Threads for the fast engines, as the services build them."""
    return Scheduler(capacity=8, name="fast", workers=workers, typical_seconds=(0.02, 0.02))


def superpower_with(
    services: Services, llm: Scheduler, fast: Scheduler, seconds: float
) -> TranslateSuperpower:
    deadlines = DeadlinePolicy(base=seconds, per_thousand_characters=0, ceiling=seconds)
    return TranslateSuperpower(
        Profiles(QueuedTranslator(services.default_translator, llm)), fast, deadlines
    )


def test_the_fast_tier_never_waits_for_the_model(services: Services) -> None:
    """German has no fast engine: its messages come back as written at once, even with the
    model busy, rather than going to the model ("hi" took 9.5 s)."""
    busy = Scheduler(capacity=1, name="busy-llm")
    pool = fast_pool()
    release = threading.Event()
    superpower = superpower_with(services, busy, pool, 30)
    contents = ["Guten Morgen, ich habe eine Frage zu meiner Bestellung vom Montag.", "hi", "ok"]

    async def scenario() -> tuple[list[Any], bool]:
        blocker = asyncio.ensure_future(busy.run(release.wait, Deadline(60)))
        await until(lambda: busy.depth > 0)
        try:
            results = await superpower(
                body(contents, targetLanguages=["en"], translationMode="fast")
            )
            # Answered while the model's queue was still held: nothing waited for it.
            return results, blocker.done()
        finally:
            release.set()
            await blocker

    [items], model_was_free = asyncio.run(scenario())
    assert not model_was_free
    assert [i.content for i in items] == contents
    assert [(i.engine, i.sourceLanguage) for i in items] == [("none", "de")] * 3
    busy.shutdown()
    pool.shutdown()


LONG_ENGLISH = " ".join(["Please send me the invoice for my last order, thank you."] * 250)


def test_fast_work_stops_at_the_deadline(services: Services) -> None:
    """About 20 s of Bergamot work (four messages of 14,000 characters, two targets) ends at its 1 s
    deadline, not when it is done."""
    pool = fast_pool()
    superpower = superpower_with(services, services.llm_queue, pool, 1)
    request = body([LONG_ENGLISH] * 4, targetLanguages=["pt-BR", "pt-PT"], translationMode="fast")
    with pytest.raises(ServiceError) as caught:
        asyncio.run(superpower(request))
    assert caught.value.code is ErrorCode.REQUEST_TIMEOUT
    # The threads are free again: the remaining pieces were never started.
    eventually(lambda: pool.depth == 0, 5, "the fast threads work on past the deadline")
    pool.shutdown()


def test_a_client_that_leaves_frees_the_fast_threads(services: Services) -> None:
    pool = fast_pool(workers=1)
    superpower = superpower_with(services, services.llm_queue, pool, 120)
    large = body([LONG_ENGLISH] * 4, targetLanguages=["pt-BR", "pt-PT"], translationMode="fast")
    small = body(["Where is my parcel?"], targetLanguages=["pt-BR"], translationMode="fast")

    async def scenario() -> None:
        abandoned = asyncio.ensure_future(superpower(large))
        await until(lambda: pool.depth > 0 and not pool.waiting)  # its pieces are running
        abandoned.cancel()  # what a dropped connection does
        with pytest.raises(asyncio.CancelledError):
            await abandoned
        # The one thread is free again: the abandoned pieces were never started.
        await until(lambda: pool.depth == 0)
        [[item]] = await superpower(small)
        assert item.engine == "bergamot:en-pt-tiny"

    asyncio.run(asyncio.wait_for(scenario(), 10))
    pool.shutdown()


def test_english_readings_for_the_summary_s_checks(services: Services) -> None:
    texts = [
        "Hola, me cobraron dos veces la factura 7734 de este mes.",
        "Bonjour, je n'arrive pas à changer mon adresse de livraison.",
        "Olá, a minha encomenda 5521 nunca chegou.",
        "Sorry about that, I will refund one today.",
        "Hallo, mein Paket ist nicht angekommen.",
        "👍",
    ]
    readings = asyncio.run(services.translate.readings(texts, [0, 1, 2, 0, 3, 0], Deadline(60)))
    spanish, french, portuguese, english, german, emoji = readings
    assert spanish is not None and "7734" in spanish and "twice" in spanish
    assert french is not None and "delivery" in french
    assert portuguese is not None and "5521" in portuguese
    # English needs no reading; German has no fast engine; an emoji nothing to translate.
    assert english is None and german is None and emoji is None
    assert asyncio.run(services.translate.readings([], [], Deadline(1))) == []
