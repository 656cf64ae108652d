from __future__ import annotations

from threadwise.text.tagged import Tag, has_words, parse_tags, split_tags, to_tagged

PAIR = [Tag(1, "open"), Tag(1, "close")]


def test_round_trip_and_checks() -> None:
    parts = ("Your ", Tag(1, "open"), "order", Tag(1, "close"), " ", Tag(2, "atom"))
    assert to_tagged(parts) == "Your <g1>order</g1> <x2/>"
    assert split_tags(to_tagged(parts)) == parts
    assert parse_tags("Seu <g1>pedido</g1> <x2/>", [*PAIR, Tag(2, "atom")]) is not None


def test_lost_repeated_or_crossed_tags_are_refused() -> None:
    assert parse_tags("Seu pedido", PAIR) is None
    assert parse_tags("<g1>a</g1> <g1>b</g1>", PAIR) is None
    assert parse_tags("</g1>a<g1>", PAIR) is None
    assert parse_tags("<g1>a<g2>b</g1>c</g2>", [*PAIR, Tag(2, "open"), Tag(2, "close")]) is None


def test_whitespace_inside_a_pair_moves_outside() -> None:
    assert parse_tags("Seu <g1> número </g1>agora", PAIR) == (
        "Seu ",
        Tag(1, "open"),
        "número",
        Tag(1, "close"),
        " agora",
    )


def test_has_words() -> None:
    assert has_words(("Hello",)) and not has_words(("$5 — 12:00", Tag(1, "atom")))
