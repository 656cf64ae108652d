"""Every scanner of message text (and of its translations) takes time in proportion to the
text, on the texts that once made one quadratic or cubic (issue 25: one long word froze the
server)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.text.complexity import MAX_RATIO, doubling_ratio, report
from threadwise.text.html_segments import HtmlSegmenter
from threadwise.text.injection import addresses_model, as_data
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.person_names import find_people
from threadwise.text.personal_data import find
from threadwise.text.plain_markup import translate_plain
from threadwise.text.plain_segments import PlainSegmenter
from threadwise.text.protected import protected_spans
from threadwise.text.readdressing import Readdresser, german_informal
from threadwise.text.repetition import cut_loops, looped
from threadwise.text.spans import NormalizedText
from threadwise.text.street_addresses import find_addresses
from threadwise.text.terms import Term, mask_terms, near_spans

Scan = Callable[[str], object]
TextOf = Callable[[int], str]


def repeated(piece: str, before: str = "", after: str = "") -> TextOf:
    """``piece`` repeated to about ``size`` characters, between ``before`` and ``after``."""
    return lambda size: before + piece * (size // len(piece)) + after


def spans(text: str) -> object:
    return list(protected_spans(text))


def personal_data(text: str) -> object:
    return find(text, regions=())  # phone numbers on their own below: they take longest


def phones(text: str) -> object:
    return find(text, regions=("US",))


SEGMENTER = MarkdownSegmenter()


def markup_kept(text: str) -> object:
    """``text``'s markup put back around an engine's words (one that answers what it got)."""
    return translate_plain([s.parts for s in SEGMENTER.segment(text).segments], list)


def emphasized(size: int) -> str:
    """A paragraph of ``size`` characters, every word emphasized and each one different."""
    words = (
        f"*{chr(97 + n % 26)}{chr(97 + n // 26 % 26)}{chr(97 + n // 676 % 26)}*"
        for n in range(size)
    )
    return " ".join(words)[:size]


# What Apertium's French analyzer reads in a request ("Pouvez-vous": a verb with the reader's
# pronoun attached), and a generator that writes the lemmas of the forms it is given.
FRENCH = {
    "Pouvez-vous": "Pouvoir<vbmod><imp><p2><pl>+vous<prn><enc><p2><mf><pl>",
    "vérifier": "vérifier<vblex><inf>",
    "votre": "votre<det><pos><mf><sg>",
    "facture": "facture<n><f><sg>",
}
READDRESSER = Readdresser(
    lambda text, language: [(word, FRENCH.get(word, f"*{word}")) for word in text.split()],
    lambda forms, language, region: [form.split("<")[0] for form in forms],
    frozenset({"fr"}),
)
TAGS = {"Julien": frozenset({"ant"}), "Daniel": frozenset({"ant"}), "Please": frozenset({"word"})}
KEEP = [Term("ok", "ok")]

CASES: dict[str, tuple[Scan, TextOf]] = {
    # protected.py
    "protected: one long word": (spans, repeated("a")),
    "protected: a dotted token": (spans, repeated("b.", after="@x")),
    "protected: an unclosed emoji code": (spans, repeated("a", before=" :")),
    "protected: a URL's trailing dots": (spans, repeated(".", before="http://x", after="a")),
    "protected: a URL's unopened parentheses": (spans, repeated(")", before="http://x")),
    "protected: emoji": (spans, repeated("ok 👍 ")),
    # personal_data.py
    "personal data: digit groups": (personal_data, repeated("1234 ")),
    "personal data: card numbers": (personal_data, repeated("4111 1111 1111 1111 ")),
    "personal data: short runs of digits": (personal_data, repeated("1, ")),
    "personal data: phone numbers in digit groups": (phones, repeated("1234 ")),
    "personal data: digits one by one": (phones, repeated("1 ")),
    "personal data: dotted digit groups": (personal_data, repeated("1234.")),
    "personal data: a spelled-out address's parts": (personal_data, repeated("ab dot ")),
    "personal data: spelled-out ats": (personal_data, repeated("ab at cd dot ")),
    "personal data: bracketed ats": (personal_data, repeated("ab [at] cd [dot] ")),
    "personal data: full-width digits": (personal_data, repeated("\uff14\uff11\uff11\uff11\u3000")),
    # spans.py: the normal form every detector reads
    "normal form: accents": (NormalizedText, repeated("é")),
    "normal form: combining accents": (NormalizedText, repeated("e\u0301")),
    "normal form: zero-width characters": (NormalizedText, repeated("a\u200b")),
    # person_names.py
    "names: titles": (lambda t: find_people(t, TAGS), repeated("Mr. ")),
    "names: plain words": (lambda t: find_people(t, TAGS), repeated("Der ")),
    "names: one long run": (lambda t: find_people(t, TAGS), repeated("Aaa ")),
    "names: many runs": (lambda t: find_people(t, TAGS), repeated("Aa bb ")),
    "names: greetings": (lambda t: find_people(t, TAGS), repeated("hi Julien ")),
    "names: names": (lambda t: find_people(t, TAGS), repeated("Please Daniel Okafor, ")),
    "names: lower case": (lambda t: find_people(t, TAGS), repeated("daniel ")),
    "names: introductions": (lambda t: find_people(t, TAGS), repeated("i'm daniel okafor ")),
    # street_addresses.py
    "addresses: buildings": (find_addresses, repeated("1 Aa Court, ")),
    "addresses: a hyphenated chain": (find_addresses, repeated("Aa-")),
    "addresses: lines before": (find_addresses, repeated("Flat 3, ", after="12 Baker St")),
    # plain_markup.py
    "plain markup: a paragraph of emphasized words": (markup_kept, emphasized),
    "plain markup: many paragraphs": (
        lambda t: translate_plain([(p,) for p in t.split("\n\n")], list),
        repeated("ab\n\n"),
    ),
    # html_segments.py, plain_segments.py
    "html: opened and never closed, then stray end tags": (
        HtmlSegmenter().segment,
        lambda size: "<b>x " * (size // 10) + "</i>" * (size // 8),
    ),
    "html: nested inline elements": (HtmlSegmenter().segment, repeated("<b><i>a ")),
    "html: paragraphs": (HtmlSegmenter().segment, repeated("<p>ab</p>")),
    "html: references and links": (
        HtmlSegmenter().segment,
        repeated("&amp; https://a.b/?c&amp;d "),
    ),
    "html: copied elements never closed": (HtmlSegmenter().segment, repeated("<code>a ")),
    "xml: blank lines": (HtmlSegmenter(xml=True).segment, repeated("a\n\n")),
    "plain: lines": (PlainSegmenter().segment, repeated("ab\n")),
    # readdressing/
    "readdressing: German Sie": (german_informal, repeated("Sie ")),
    "readdressing: German requests": (german_informal, repeated("Können Sie ")),
    "readdressing: French questions": (
        lambda t: READDRESSER.rewrite(t, "fr", None, "informal"),
        repeated("Pouvez-vous vérifier votre facture "),
    ),
    # injection.py
    "injection: one long word": (addresses_model, repeated("a")),
    "injection: orders without what they override": (addresses_model, repeated("ignore the ")),
    "injection: replies without what they dictate": (addresses_model, repeated("reply only ")),
    "injection: brackets": (as_data, repeated("<a")),
    "injection: chat-template tokens": (as_data, repeated("<|x|>")),
    # repetition.py
    "repetition: a loop of words": (lambda t: cut_loops(t, "x"), repeated("ab cd ")),
    "repetition: one letter": (lambda t: cut_loops(t, "x"), repeated("a")),
    "repetition: a hyphenated chain": (looped, repeated("a-")),
    "repetition: words that never repeat": (
        looped,
        lambda size: " ".join(f"w{n}" for n in range(size // 6)),
    ),
    # terms.py
    "terms: beside emoji": (lambda t: mask_terms(t, KEEP), repeated("ok 👍 ")),
    "terms: beside code": (lambda t: mask_terms(t, KEEP), repeated("ok `x` ")),
    "terms: near wordings": (
        lambda t: near_spans("factory reset", t, 1),
        repeated("factory reset "),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_doubling_the_text_at_most_doubles_the_time(case: str) -> None:
    scan, text_of = CASES[case]
    ratio, timings = doubling_ratio(scan, text_of)
    assert ratio <= MAX_RATIO, f"{case}: {ratio:.1f} times as long per doubling ({report(timings)})"
