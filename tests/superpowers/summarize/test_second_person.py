"""Sentences about the customer, told to the customer (the recap)."""

from __future__ import annotations

import pytest

from threadwise.superpowers.summarize.second_person import to_customer

NAMES = ["Priya Raman", "Priya"]


@pytest.mark.parametrize(
    ("sentence", "told"),
    [
        (
            "Priya Raman wants to return her headphones because they hurt her ears.",
            "You want to return your headphones because they hurt your ears.",
        ),
        ("Priya Raman was charged twice.", "You were charged twice."),
        ("Priya Raman has to wait, and she is upset.", "You have to wait, and you are upset."),
        ("Priya Raman also asks for a refund.", "You also ask for a refund."),
        ("Priya Raman misses the deadline.", "You miss the deadline."),
        ("Priya Raman tries again.", "You try again."),
        ("Priya Raman will restart his router.", "You will restart your router."),
        ("Priya's order A-20931 is late.", "Your order A-20931 is late."),
        # The customer not the subject: named, then "you"; others' pronouns kept.
        ("Marcus adds a credit to Priya's account.", "Marcus adds a credit to your account."),
        ("Marcus tells Priya that he is sorry.", "Marcus tells you that he is sorry."),
        ("Marcus refuses the return.", "Marcus refuses the return."),
    ],
)
def test_the_customer_becomes_you(sentence: str, told: str) -> None:
    assert to_customer(sentence, NAMES) == told


def test_a_generic_label_is_a_name_too() -> None:
    assert to_customer("The customer asks for a refund.", ["The customer"]) == (
        "You ask for a refund."
    )
    assert to_customer("Sentence.", []) == "Sentence."
