from __future__ import annotations

from bench.corruption_kinds import (
    Sentence,
    accept_refuse,
    base,
    done_for_promised,
    moved_detail,
    negation,
    number,
    swap,
)


def sentence(predicate: str, other: str | None = "Lee") -> Sentence:
    return Sentence(
        actor="Sam",
        predicate=predicate,
        other=other,
        own_words=frozenset({"supermarket", "work"}),
        other_text="I do yard work. The garden is big.",
    )


def test_swap_exchanges_the_two_speakers_and_needs_two() -> None:
    assert swap(sentence("invites Lee to the beach")) == "Lee invites Sam to the beach."
    assert swap(sentence("invites Lee to the beach", other=None)) is None


def test_done_for_promised_goes_both_ways() -> None:
    assert done_for_promised(sentence("will send the form")) == "Sam sends the form."
    assert done_for_promised(sentence("asks Lee to fill out the form")) == "Sam fills out the form."
    promised = done_for_promised(sentence("sends the form"))
    assert promised in {
        "Sam will send the form.",
        "Sam offers to send the form.",
        "Sam promises to send the form.",
        "Sam asks Lee to send the form.",
    }
    assert done_for_promised(sentence("says hello")) is None  # saying is no act


def test_accept_refuse_flips_the_first_answer() -> None:
    assert accept_refuse(sentence("agrees to the change")) == "Sam refuses the change."
    assert accept_refuse(sentence("refused to refund the fee")) == "Sam agreed to refund the fee."
    assert accept_refuse(sentence("declines the offer")) == "Sam accepts the offer."
    assert accept_refuse(sentence("is able to pay")) == "Sam is unable to pay."
    assert accept_refuse(sentence("pays")) is None


def test_negation_adds_or_removes_a_negation() -> None:
    assert negation(sentence("wants a dog")) == "Sam does not want a dog."
    assert negation(sentence("does not want a dog")) == "Sam wants a dog."
    assert negation(sentence("is not sure")) == "Sam is sure."
    assert negation(sentence("opened ticket 12")) == "Sam did not open ticket 12."


def test_number_changes_an_amount_but_not_an_id() -> None:
    changed = number(sentence("pays $725 for order 48213"))
    assert changed is not None and "$725" not in changed and "48213" in changed
    assert number(sentence("opened ticket INC-48213")) is None


def test_moved_detail_puts_the_other_speakers_noun_in() -> None:
    assert moved_detail(sentence("works at a supermarket")) == "Sam works at a garden."


def test_base_forms() -> None:
    assert [base(w) for w in ("sends", "provided", "opened", "stopped", "saw", "apologizes")] == [
        "send",
        "provide",
        "open",
        "stop",
        "see",
        "apologize",
    ]
    assert base("only") is None
