"""A request's meter counts the tokens its work spends, on whichever thread that work runs."""

from __future__ import annotations

import asyncio
import threading

import anyio.to_thread

from threadwise.deadlines import Deadline
from threadwise.engines.metering import Meter, charge, metering
from threadwise.work_queue import Scheduler


def test_charges_outside_a_meter_go_nowhere() -> None:
    charge(10, 2)  # nothing to count them: no error either
    with metering() as meter:
        charge(10, 2)
        charge(5, 1)
    charge(100, 100)  # after it ended
    assert (meter.prompt_tokens, meter.completion_tokens) == (15, 3)


def test_a_meter_is_added_to_from_many_threads() -> None:
    meter = Meter()

    def spend() -> None:
        for _ in range(1000):
            meter.add(1, 2)

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (meter.prompt_tokens, meter.completion_tokens) == (8000, 16000)


def test_each_request_is_charged_for_its_own_jobs_on_the_queues_threads() -> None:
    queue = Scheduler(10, "metering", workers=2, typical_seconds=(0.01, 0.01))

    async def request(tokens: int) -> tuple[Meter, set[str]]:
        threads: set[str] = set()

        def work() -> None:
            threads.add(threading.current_thread().name)
            charge(tokens, 1)

        with metering() as meter:
            for _ in range(3):
                await queue.run(work, Deadline(10))
            await anyio.to_thread.run_sync(work)
        return meter, threads

    async def scenario() -> list[tuple[Meter, set[str]]]:
        return list(await asyncio.gather(request(10), request(100)))

    try:
        (first, ran_on), (second, _) = asyncio.run(scenario())
    finally:
        queue.shutdown()
    assert threading.current_thread().name not in ran_on
    assert (first.prompt_tokens, first.completion_tokens) == (40, 4)
    assert (second.prompt_tokens, second.completion_tokens) == (400, 4)


def test_submitted_work_is_charged_to_the_meter_it_was_submitted_under() -> None:
    queue = Scheduler(10, "metering", typical_seconds=(0.01, 0.01))
    try:
        with metering() as meter:
            loading = queue.submit(lambda: charge(7, 7))
        loading.result(timeout=10)
        queue.submit(lambda: charge(1000, 1000)).result(timeout=10)  # outside any meter
    finally:
        queue.shutdown()
    assert (meter.prompt_tokens, meter.completion_tokens) == (7, 7)
