"""Readdressing: a line rewritten into the other register with the dictionaries; the cases of
each language are at its planner's test (``test_french``, ``test_iberian``, ``test_german``)."""

from __future__ import annotations

from threadwise.text.readdressing import Readdresser, german_informal


def test_languages_without_the_dictionaries_and_default_are_left_alone(
    readdresser: Readdresser,
) -> None:
    assert readdresser.rewrite("Ciao, come stai?", "it", None, "formal") == "Ciao, come stai?"
    assert readdresser.rewrite("Revise su correo.", "es", None, "default") == "Revise su correo."


def test_which_languages_and_registers_can_be_rewritten(readdresser: Readdresser) -> None:
    assert readdresser.rewrites("de", "informal") and not readdresser.rewrites("de", "formal")
    assert readdresser.rewrites("fr", "formal") and readdresser.rewrites("es", "informal")
    assert not readdresser.rewrites("it", "formal")
    line = "Können Sie mir helfen?"
    assert readdresser.rewrite(line, "de", None, "informal") == german_informal(line) != line
