"""Repetition loops: found, and cut unless the original loops too."""

from __future__ import annotations

import pytest

from threadwise.text.repetition import cut_loops, looped


@pytest.mark.parametrize(
    ("translation", "original", "cut"),
    [
        # A unit of words, whatever its case, back to back at least three times: one is kept.
        (
            "El pedido el pedido el pedido el pedido llegó.",
            "The order arrived.",
            "El pedido llegó.",
        ),
        ("Bonjour. Bonjour. Bonjour. Bonjour.", "Hello.", "Bonjour."),
        # One letter over and over, in a script without spaces: a word of two is kept.
        ("谢谢谢谢谢谢谢谢谢谢", "Thanks", "谢谢"),
        ("ありがとうありがとうありがとうありがとうありがとう", "Thanks", "ありがとう"),
    ],
)
def test_a_loop_is_cut_to_one_copy(translation: str, original: str, cut: str) -> None:
    assert looped(translation)
    assert cut_loops(translation, original) == cut


@pytest.mark.parametrize(
    ("translation", "original"),
    [
        ("Gracias gracias gracias", "Thanks thanks thanks"),  # the writer's own
        ("jajajajajaja", "hahahahaha"),
        ("No, no, no: el pedido 4471 llegó.", "No, no, no: order 4471 arrived."),
        ("Hola, ¿cómo estás? Muy bien, gracias.", "Hi, how are you? Fine, thanks."),
        ("ok ok", "ok ok"),
    ],
)
def test_what_the_original_has_or_no_loop_is_kept(translation: str, original: str) -> None:
    assert cut_loops(translation, original) == translation


def test_two_copies_are_no_loop() -> None:
    assert not looped("muy muy bien") and not looped("Merci beaucoup")
