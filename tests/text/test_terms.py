"""Terms as placeholders, and their translations put in."""

from __future__ import annotations

from threadwise.text.protected import protected_counts
from threadwise.text.terms import Term, mask_terms

TERMS = (
    Term("dashboard", "panel de control"),
    Term("billing cycle", "ciclo de facturación"),
    Term("billing", "facturación"),
    Term("Acme Cloud", "Acme Cloud", case_sensitive=True),
)


def test_each_term_becomes_one_placeholder_and_comes_back_translated() -> None:
    masked = mask_terms("Your billing cycle is on the dashboard, billing too.", TERMS)
    # The longest term first: "billing cycle" is one term, not "billing" and "cycle".
    assert masked.text == "Your [TERM_1] is on the [TERM_2], [TERM_3] too."
    assert masked.unmask("Tu [TERM_1] está en el [TERM_2], y [TERM_3] también.") == (
        "Tu ciclo de facturación está en el panel de control, y facturación también."
    )


def test_placeholders_are_protected_spans() -> None:
    masked = mask_terms("Open the dashboard.", TERMS)
    assert protected_counts(masked.text) == {"[TERM_1]": 1}


def test_whole_words_case_and_a_capital_kept() -> None:
    masked = mask_terms("Dashboards aside, Dashboard works; acme cloud is not Acme Cloud.", TERMS)
    assert masked.text == "Dashboards aside, [TERM_1] works; acme cloud is not [TERM_2]."
    assert masked.targets == {"[TERM_1]": "Panel de control", "[TERM_2]": "Acme Cloud"}


def test_code_urls_and_addresses_are_left_alone() -> None:
    text = "Run `dashboard --open` or see https://example.com/dashboard and dashboard@x.io."
    assert mask_terms(text, TERMS).text == text


def test_no_terms_no_change() -> None:
    assert mask_terms("Open the dashboard.", ()).text == "Open the dashboard."
