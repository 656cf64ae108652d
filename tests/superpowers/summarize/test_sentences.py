"""A summary's sentences: a title's stop ends none (a summary was once cut to
"Mr. Black asks Mr.")."""

from __future__ import annotations

from threadwise.superpowers.summarize.sentences import (
    complete_sentences,
    concise,
    fit_length,
    units,
)

TEXT = "Mr. Black asks Mr. Smith for the report. Mr. Smith agrees."


def test_titles_keep_sentences_whole() -> None:
    assert units(TEXT, "paragraph") == [
        "Mr. Black asks Mr. Smith for the report.",
        "Mr. Smith agrees.",
    ]
    assert concise(TEXT, "paragraph") == TEXT
    assert concise(TEXT, "paragraph", sentences=1) == "Mr. Black asks Mr. Smith for the report."


def test_a_list_keeps_its_lines() -> None:
    assert units("- Mr. Black asks\n- Mr. Smith agrees", "bullets") == [
        "- Mr. Black asks",
        "- Mr. Smith agrees",
    ]


def test_a_cut_answer_ends_at_its_last_sentence_not_a_title() -> None:
    assert complete_sentences(TEXT + " Then Mr.") == TEXT
    assert complete_sentences("Mr. Black asks Mr. Smith for the re") == (
        "Mr. Black asks Mr. Smith for the re"
    )


def test_a_length_is_fitted_at_a_sentence_end() -> None:
    assert fit_length(TEXT, len(TEXT) - 3) == "Mr. Black asks Mr. Smith for the report."
    assert fit_length("It costs $8.50 a month. Fine.", 25) == "It costs $8.50 a month."
