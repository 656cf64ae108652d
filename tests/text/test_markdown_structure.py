"""The check that a translation kept its source's Markdown structure and protected text."""

from __future__ import annotations

from threadwise.text.markdown_structure import inline_problems, structure_problems

SOURCE = (
    "Please send:\n1. Your **order number**\n2. A photo\n\nSee [the policy](https://x.example/r)"
)


def test_the_same_structure_in_other_words_has_no_problem() -> None:
    translated = (
        "Envíe:\n1. Su **número de pedido**\n2. Una foto\n\nVea [la política](https://x.example/r)"
    )
    assert structure_problems(SOURCE, translated) == []


def test_a_lost_list_or_emphasis_is_reported() -> None:
    [problem] = structure_problems(SOURCE, SOURCE.replace("**", ""))
    assert problem.startswith("structure differs at element")
    [problem] = structure_problems("- one\n- two", "- one")
    assert "structure" in problem


def test_a_changed_link_target_or_code_is_reported() -> None:
    assert structure_problems(SOURCE, SOURCE.replace("x.example", "y.example"))
    assert structure_problems("Run `status --all`.", "Ejecute `estado --todo`.")


def test_protected_text_must_survive() -> None:
    [problem] = structure_problems("Mail ana@x.example today.", "Escriba hoy.")
    assert problem.startswith("protected text changed") and "ana@x.example" in problem


def test_inline_content_is_checked_the_same_way() -> None:
    assert inline_problems("a **b** c", "x **y** z") == []
    assert inline_problems("a **b** c", "x y z")
    assert inline_problems("see https://x.example", "ver") == ["protected text changed"]
