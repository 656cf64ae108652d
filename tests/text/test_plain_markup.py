"""Tags through a plain-text engine, with predictable fake engines (Bergamot's real runs are
in tests/engines/test_bergamot.py)."""

from __future__ import annotations

from threadwise.text.plain_markup import translate_plain
from threadwise.text.tagged import Tag, to_tagged

WORDS = {"your order number": "seu número de pedido", "order number": "número do pedido"}


def engine(texts: list[str]) -> list[str]:
    return [WORDS.get(t.lower().strip(), t.upper()) for t in texts]


def test_pairs_are_placed_around_the_best_matching_words() -> None:
    segment = ("Your ", Tag(1, "open"), "order number", Tag(1, "close"))
    [result] = translate_plain([segment], engine)
    assert result is not None
    assert to_tagged(result) == "seu <g1>número de pedido</g1>"


def test_atoms_travel_as_placeholder_words() -> None:
    segment = ("run ", Tag(1, "atom"), " now ", Tag(2, "atom"))
    [result] = translate_plain([segment], engine)
    assert result is not None and to_tagged(result) == "RUN <x1/> NOW <x2/>"


def test_lost_placeholder_or_unmatched_pair_is_reported() -> None:
    assert translate_plain([("a ", Tag(1, "atom"))], lambda ts: ["a" for _ in ts]) == [None]
    segment = ("hello ", Tag(1, "open"), "world", Tag(1, "close"))
    assert translate_plain(
        [segment], lambda ts: ["zzz qqq" if "hello" in t else "xyz" for t in ts]
    ) == [None]
