"""Apertium (rule-based MT, Debian packages) through warm, long-lived pipelines.

``engine`` is the translation engine (its pairs, pivoting through Spanish, and the
dictionaries' analyzers and generators); ``pipeline`` one mode's programs kept running;
``stream`` Apertium's stream format, with what must not reach the programs carried past them.
"""

from threadwise.engines.apertium.engine import ApertiumEngine
from threadwise.engines.apertium.pipeline import ApertiumPipeline
from threadwise.engines.apertium.stream import (
    RESERVED,
    carry_reserved,
    from_stream,
    put_back,
    to_stream,
)

__all__ = [
    "RESERVED",
    "ApertiumEngine",
    "ApertiumPipeline",
    "carry_reserved",
    "from_stream",
    "put_back",
    "to_stream",
]
