"""Sentence boundaries: abbreviations, numbers, addresses and quotes end none; a stop, a
line break and each language's question and exclamation marks do."""

from __future__ import annotations

import pytest

from tests.text.complexity import MAX_RATIO, doubling_ratio, report
from threadwise.text.sentences import sentence_ends, split_sentences

# Each case: the language and its sentences, which joined by a space must split back apart.
CASES = [
    ("en", ["Mr. Black asks Mr. Smith to call.", "Mrs. Green agrees."]),
    ("en", ["Dr. Who lives on Baker St. near the station.", "He is No. 1 in town."]),
    ("en", ["Bring fruit, e.g. apples, i.e. the red ones, etc.", "Then leave."]),
    ("en", ["She moved to the U.S. in May.", "It was cold."]),
    ("en", ["The call is at 9 a.m. on Monday.", "It ends at 5 p.m. sharp."]),
    ("en", ["The plan costs $8.50 a month.", "Storage is 3.5 GB."]),
    ("en", ["Upgrade to v2.1.3 first.", "Then restart."]),
    ("en", ["See https://example.com/a.b?x=1 for details.", "Mail bob.smith@example.com."]),
    ("en", ["Well... I am not sure.", "Really?!", "Yes."]),
    ("en", ['He said "Stop."', "Then he left (quietly).", "Fine."]),
    ("en", ["The refund was issued.", "The customer thanked the agent"]),
    ("es", ["¿Dónde está el Sr. García?", "La Sra. López no sabe."]),
    ("es", ["El pedido cuesta 8,50 €.", "¡Gracias!"]),
    ("de", ["Bitte z.B. die Nr. 5 nehmen.", "Danke."]),
    ("de", ["Das ist z. B. gut.", "Herr Dr. Meier kommt um 9 Uhr."]),
    ("fr", ["M. Dupont et Mme Martin arrivent.", "Ils partent à 17 h."]),
    ("fr", ["Vraiment ?", "Oui !", "C'est fini."]),
    ("pt-BR", ["O Sr. Silva chegou às 9h.", "A Sra. Costa saiu."]),
    ("pt", ["Custa R$ 8,50.", "Obrigado pelo contato."]),
]


@pytest.mark.parametrize(("language", "sentences"), CASES, ids=lambda c: str(c)[:30])
def test_sentences_split_where_they_end(language: str, sentences: list[str]) -> None:
    assert split_sentences(" ".join(sentences), language) == sentences


def test_the_reviewers_summary_is_one_sentence() -> None:
    assert split_sentences("Mr. Black asks Mr. Smith to call.") == [
        "Mr. Black asks Mr. Smith to call."
    ]


def test_a_line_break_ends_a_sentence() -> None:
    text = "- first item\n- second item\n\nA paragraph. And another"
    assert split_sentences(text) == ["- first item", "- second item", "A paragraph.", "And another"]


def test_an_unknown_language_reads_as_english() -> None:
    text = "Mr. Black asks Mr. Smith to call. Mrs. Green agrees."
    assert split_sentences(text, "xx-Latn") == split_sentences(text, "") == split_sentences(text)


def test_nothing_but_space_has_no_sentences() -> None:
    assert split_sentences(" \n\n \t") == []
    assert sentence_ends("") == []


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ('He came. She said "Stop." And th', ["He came.", 'He came. She said "Stop."']),
        ("Mr. Black asks Mr.", []),  # cut after a title
        ("It costs $8.", []),  # cut inside "$8.50"
        ("Bring fruit, e.g.", []),
        ("It is done. Call Dr.", ["It is done."]),
        ("Done! Really?", ["Done!", "Done! Really?"]),
    ],
)
def test_complete_sentences_end_after_their_stop(text: str, ends: list[str]) -> None:
    assert [text[:end] for end in sentence_ends(text)] == ends


HOSTILE = {
    "stops after letters": "a. ",
    "dots": ".",
    "one word": "x",
    "titles": "Mr. ",
    "abbreviations": "e.g. ",
    "marks": "?!",
    "quoted stops": '"a." ',
    "line breaks": "a\n",
    "prose": "Mr. Black asks Dr. Smith for the 3.5 GB report. He agrees! ",
}


@pytest.mark.parametrize("piece", HOSTILE.values(), ids=list(HOSTILE))
def test_time_grows_with_the_text_not_faster(piece: str) -> None:
    def text_of(size: int) -> str:
        return piece * (size // len(piece))

    for scan in (split_sentences, sentence_ends):
        ratio, timings = doubling_ratio(scan, text_of)
        assert ratio <= MAX_RATIO, f"{scan.__name__}: {report(timings)}"
