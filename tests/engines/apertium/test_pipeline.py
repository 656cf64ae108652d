"""Apertium's pipelines through the engine: one that dies or hangs is restarted."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from threadwise.engines.apertium import ApertiumEngine
from threadwise.engines.apertium.pipeline import ApertiumPipeline, _Waiting
from threadwise.engines.machine import TranslationEngineError


def test_restarts_a_dead_pipeline(apertium: ApertiumEngine) -> None:
    apertium.translate([("The house is red.",)], "en", "es")
    pipeline = apertium._pipeline(apertium._mode_chain("en", "es", None)[0])
    pipeline._processes[3].kill()
    pipeline._processes[3].wait()
    [result] = apertium.translate([("The house is red.",)], "en", "es")
    assert result == ("La casa es roja.",)


def test_a_hung_pipeline_fails_at_once_and_is_restarted() -> None:
    """A pipeline that stops answering (here: one of its programs stopped) fails within the
    watchdog's time, once (the same text would hang it again), and the next text finds it
    restarted; the other directions never wait for it."""
    engine = ApertiumEngine(["en", "es", "fr"])
    try:
        engine.translate([("Good morning.",)], "en", "es")
        pipeline = engine._pipeline(engine._mode_chain("en", "es", None)[0])
        os.kill(pipeline._processes[5].pid, signal.SIGSTOP)  # lrx-proc, where `^` hung
        # Given up by the watchdog (2 s), not by anything slower.
        with pytest.raises(
            TranslationEngineError, match=r"did not answer: no answer within 2\.\d s"
        ):
            engine.translate([("The house is red.",)], "en", "es")
        assert engine.translate([("Buenos días.",)], "es", "fr") == [("Bonjour.",)]
        assert engine.translate([("The house is red.",)], "en", "es") == [("La casa es roja.",)]
    finally:
        engine.close()


class _Queue(list[_Waiting]):
    """The pipeline's queue of waiting callers, telling when ``count`` have queued."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.wanted = count
        self.full = threading.Event()

    def append(self, waiting: _Waiting) -> None:
        super().append(waiting)
        if len(self) >= self.wanted:
            self.full.set()


def _queued(pipeline: ApertiumPipeline, count: int) -> threading.Event:
    """An event set once ``count`` callers wait for the pipeline's next pass."""
    queue = _Queue(count)
    pipeline._queue = queue
    return queue.full


def test_callers_waiting_for_a_pass_share_the_next_one(apertium: ApertiumEngine) -> None:
    apertium.translate([("Good morning.",)], "en", "es")
    pipeline = apertium._pipeline(apertium._mode_chain("en", "es", None)[0])
    # Stream-format texts, as the engine sends them: each answered as alone.
    sentences = {s: pipeline.translate([s])[0] for s in ("The house is red", "Good morning.")}
    assert set(sentences.values()) == {"La casa es roja", "Buenos días."}
    with ThreadPoolExecutor(len(sentences)) as pool:
        with pipeline._lock:  # a pass runs: the callers wait, queued
            queued = _queued(pipeline, len(sentences))
            futures = {s: pool.submit(pipeline.translate, [s]) for s in sentences}
            assert queued.wait(10), "the callers never queued"
            passes = next(pipeline._markers)
        for sentence, future in futures.items():
            assert future.result(timeout=10) == [sentences[sentence]]
    assert next(pipeline._markers) == passes + 2  # one pass for both


def test_a_joined_pass_that_hangs_is_tried_again_one_caller_at_a_time() -> None:
    engine = ApertiumEngine(["en", "es"])
    try:
        engine.translate([("Good morning.",)], "en", "es")
        pipeline = engine._pipeline(engine._mode_chain("en", "es", None)[0])
        with ThreadPoolExecutor(2) as pool:
            with pipeline._lock:
                queued = _queued(pipeline, 2)
                first = pool.submit(pipeline.translate, ["The house is red"])
                second = pool.submit(pipeline.translate, ["Good morning."])
                assert queued.wait(10), "the callers never queued"
                os.kill(pipeline._processes[5].pid, signal.SIGSTOP)
            # The joined pass hangs (2 s); each caller's text alone then goes through the
            # restarted pipeline.
            assert first.result(timeout=30) == ["La casa es roja"]
            assert second.result(timeout=30) == ["Buenos días."]
    finally:
        engine.close()
