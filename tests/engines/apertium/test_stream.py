"""Apertium's stream format: what the programs must not see is carried past them."""

from __future__ import annotations

from threadwise.engines.apertium import RESERVED, carry_reserved, from_stream, put_back, to_stream
from threadwise.text.tagged import Tag, to_tagged

# A 4 KB dotted token: each analyzer spent seconds on it (quadratic in its length), so the
# watchdog restarted the shared pipelines, the requests failed and every other one waited.
LONG_WORD = "b." * 1998
HOSTILE = LONG_WORD + "@x"


def test_stream_format_round_trip() -> None:
    parts = ("a [b] ^c$ /d @e\x00 ", Tag(1, "open"), "f*", Tag(1, "close"), Tag(2, "atom"))
    carried, reserved = carry_reserved(parts)
    # Only words and blanks are left as text; each run of reserved characters is an atom.
    assert not any(RESERVED.search(p) for p in carried if isinstance(p, str))
    assert (
        to_tagged(carried) == "a <x3/>b<x4/> <x5/>c<x6/> <x7/>d <x8/>e<x9/> <g1>f<x10/></g1><x2/>"
    )
    assert from_stream(to_stream(carried)).strip() == to_tagged(carried)
    assert put_back(carried, reserved) == parts
    assert from_stream("^*unknown #word @other") == "^unknown word other"


def test_long_words_among_others_are_carried_and_put_back() -> None:
    word = "x" * 49
    parts = (f"a {word} b{LONG_WORD}@", Tag(1, "open"), "c", Tag(1, "close"))
    carried, reserved = carry_reserved(parts)
    assert to_tagged(carried) == "a <x2/> <x3/><x4/><g1>c</g1>"  # "b" and the dots: one word
    assert put_back(carried, reserved) == parts
    assert carry_reserved(("x" * 48,)) == (("x" * 48,), {})
