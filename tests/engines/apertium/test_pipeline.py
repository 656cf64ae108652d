"""Apertium's pipelines through the engine: one that dies or hangs is restarted."""

from __future__ import annotations

import os
import signal

import pytest

from threadwise.engines.apertium import ApertiumEngine
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
