"""A thread's memory: what was said of its first lines, kept for its next version."""

from __future__ import annotations

import json

from threadwise.superpowers.summarize.memory import ThreadMemory, prefix_digest


def test_the_memory_survives_a_json_round_trip() -> None:
    memory = ThreadMemory(
        lines=2,
        prefix=prefix_digest(["Ana: Hi", "Bo: Hello"], "Ana is the customer"),
        chat=[{"role": "user", "content": "Summarize."}],
        summary="Ana greets Bo.",
    )
    assert ThreadMemory.from_json(json.loads(json.dumps(memory.to_json()))) == memory


def test_the_digest_depends_on_the_lines_their_order_and_who_is_who() -> None:
    lines = ["Ana: Hi", "Bo: Hello"]
    digest = prefix_digest(lines, "cast")
    assert digest == prefix_digest(list(lines), "cast")
    assert digest != prefix_digest(lines[::-1], "cast")
    assert digest != prefix_digest(lines, "another cast")
    assert digest != prefix_digest([*lines, "Ana: Bye"], "cast")
