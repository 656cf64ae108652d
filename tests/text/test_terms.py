"""Terms as placeholders, and their translations put in."""

from __future__ import annotations

import re

from threadwise.text.protected import protected_counts
from threadwise.text.terms import Term, mask_terms, near_spans, whole_words

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


def test_near_spans_find_a_terms_own_wording_in_context() -> None:
    text = "Tente uma redefinição de fábrica: mantenha o botão de alimentação por 15 segundos."
    [(start, end)] = near_spans("reset de fábrica", text, 1)
    assert text[start:end] == "redefinição de fábrica"
    # An article the term gained alone, a hyphen, a note in brackets.
    text = "Pode pagar em 10 parcelas sem juros no checkout."
    assert [text[s:e] for s, e in near_spans("as parcelas", text, 1)] == ["parcelas"]
    assert [text[s:e] for s, e in near_spans("check-out (a)", text, 1)] == ["checkout"]
    # Nothing alike, or not just as often as the source has the term: none.
    assert near_spans("top-up", "Compre um recarte de 2 GB.", 1) == []
    twice = "La actualización falló; pruebe la actualización otra vez."
    assert near_spans("firmware actualización", twice, 1) == []


def test_a_term_in_a_script_without_spaces_is_found_inside_a_run_of_letters() -> None:
    masked = mask_terms(
        "我的订单号4471还没有到。注文番号は4471です。",
        [
            Term("订单", "order"),
            Term("注文", "order"),
        ],
    )
    assert masked.text == "我的[TERM_1]号4471还没有到。[TERM_1]番号は4471です。"
    assert [count for _, count in masked.counts] == [1, 1]
    # In an alphabet a term is still a whole word: "dashboards" is not "dashboard".
    assert mask_terms("dashboards", [Term("dashboard", "panel")]).text == "dashboards"


def test_whole_words_bounds_only_the_edges_written_in_an_alphabet() -> None:
    assert re.findall(whole_words("订单"), "我的订单号") == ["订单"]
    # Beside Chinese letters a word in an alphabet begins: "买iPhone" is "buy" and "iPhone".
    assert re.findall(whole_words("iPhone"), "买iPhone订单") == ["iPhone"]
    assert re.findall(whole_words("iPhone"), "iPhones") == []
    assert re.findall(whole_words("top-up"), "a top-up, top-ups") == ["top-up"]
