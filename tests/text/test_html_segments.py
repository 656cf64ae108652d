"""HTML and XML segmentation: round trips, what engines see, escaping, malformed markup."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from threadwise.text.html_segments import HtmlSegmenter
from threadwise.text.segmented import SegmentedMessage
from threadwise.text.tagged import Parts, Tag, to_tagged

HTML = HtmlSegmenter()
XML = HtmlSegmenter(xml=True)

CORPUS = [
    "",
    "Just words, no markup at all.",
    "<p>Thanks a lot for <strong>your help</strong>!</p>",
    '<p>See <a href="https://example.com/a?x=1&amp;y=2" rel="nofollow noopener">our '
    "<b>returns</b> page</a>.<br>Questions? Write to help@example.com 👍</p>",
    '<div class="x"><p>One</p>\n  <p>Two <img src="a>b.png" alt="a > b"></p></div>',
    "<ul><li>First</li><li>Second <code>ls -la</code> item</li></ul>",
    '<script>var a = "<p>not text</p>";</script><style>p > b { color: red }</style>',
    "<pre>  keep   me\n  as is</pre><p>but translate me</p>",
    '<p translate="no">Acme Cloud</p><p>Use <span class="brand notranslate">Acme</span> daily.</p>',
    "<!DOCTYPE html><html><head><title>Order status</title></head>"
    "<body><h1>Hi &lt;there&gt; &amp; welcome</h1><!-- a comment --><?php echo 1 ?></body></html>",
    "Tom &amp; Jerry &nbsp;&#169; &#x2014; &unknown; & alone",
    "Stray </b> and <i>unclosed <b>bold</i> tail",
    "<p>Unclosed <b>bold and <em>more",
    "<script>never closed",
    "<p>a < b and c > d, <3</p>",
    "<table><tr><th>Name</th><td>Value with <sup>2</sup></td></tr></table>",
    '<p>Line one<br/>line two<br clear="all">three</p>',
    "<P CLASS=Notranslate>Kept</P><P>Hello <B>World</B></P>",
    "<p>Placeholders {name} and %s and {{count}} stay</p>",
    "<p>Text with\n   newlines\n inside</p>",
    "<textarea>raw <b>text</b></textarea><select><option>Choose one</option></select>",
    "<![CDATA[ x < y ]]><p>After cdata</p>",
    "<p><b><i>Nested</i> inline</b> <u>tags</u> <mark>here</mark></p>",
    "<p>Unterminated <a href='x",
    "<p>Half a tag <b",
]

XML_CORPUS = [
    "<doc>\n  <title>Hello</title>\n  <para>Text with <b>bold</b>.\n\nSecond.</para>\n</doc>",
    '<?xml version="1.0"?><note><to>Tove</to><body>Don\'t forget me &amp; call!</body></note>',
    "<t>Keep <x translate='no'>this</x> and <y/> that</t>",
    "<a><b>Unclosed",
    "Just text\n\nand another paragraph",
]


def source_of(message: SegmentedMessage) -> str:
    return message.render([s.source() for s in message.segments])


def untranslated(message: SegmentedMessage) -> str:
    return message.render([s.render(s.parts) for s in message.segments])


@pytest.mark.parametrize("text", CORPUS)
def test_html_round_trips_byte_for_byte(text: str) -> None:
    message = HTML.segment(text)
    assert source_of(message) == text
    # Rendered from what the engine sees, it reads the same (references re-encoded).
    again = HTML.segment(untranslated(message))
    assert [s.parts for s in again.segments] == [s.parts for s in message.segments]


@pytest.mark.parametrize("text", XML_CORPUS)
def test_xml_round_trips_byte_for_byte(text: str) -> None:
    assert source_of(XML.segment(text)) == text


FRAGMENTS = [
    "<p>",
    "</p>",
    "<b>",
    "</b>",
    "<i>",
    "</i>",
    "<br>",
    "<br/>",
    '<a href="x>y">',
    "</a>",
    "<code>",
    "</code>",
    '<span translate="no">',
    "</span>",
    "<!-- c -->",
    "&amp;",
    "&nbsp;",
    "&#169;",
    "&bogus;",
    "<",
    ">",
    "&",
    "\n",
    " ",
    "https://example.com/a?b=1&amp;c=2",
    "👍",
    "<script>",
    "</script>",
    "<li>",
]
WORDS = st.text(alphabet=string.ascii_letters + " .,!?", min_size=0, max_size=8)
PIECES = st.lists(st.one_of(st.sampled_from(FRAGMENTS), WORDS), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(PIECES)
def test_any_markup_round_trips_and_never_raises(text: str) -> None:
    for segmenter in (HTML, XML):
        message = segmenter.segment(text)
        assert source_of(message) == text
        for segment in message.segments:
            assert segment.render(segment.parts)  # every tag has its markup


def parts_of(text: str, segmenter: HtmlSegmenter = HTML) -> list[str]:
    return [to_tagged(s.parts) for s in segmenter.segment(text).segments]


def test_engines_see_blocks_as_segments_with_inline_pairs_and_atoms() -> None:
    text = (
        '<p>See <a href="https://example.com/a?x=1&amp;y=2">our <b>returns</b> page</a>.'
        "<br>Mail help@example.com &amp; wait&nbsp;a day.</p><p>Thanks!</p>"
    )
    assert parts_of(text) == [
        "See <g1>our <g2>returns</g2> page</g1>.<x3/>Mail <x4/> & wait a day.",
        "Thanks!",
    ]
    [segment, _] = HTML.segment(text).segments
    assert segment.markup[Tag(1, "open")] == '<a href="https://example.com/a?x=1&amp;y=2">'
    assert segment.markup[Tag(4, "atom")] == "help@example.com"


def test_a_pair_around_all_of_a_block_and_the_space_at_its_ends_stay_outside() -> None:
    assert parts_of("<li> <strong>Note</strong> </li>") == ["Note"]
    message = HTML.segment("<p>\n  Text with\n   newlines\n inside  </p>")
    assert [to_tagged(s.parts) for s in message.segments] == ["Text with newlines inside"]


def test_code_and_notranslate_are_atoms_in_a_line_and_copied_as_blocks() -> None:
    text = (
        "<p>Run <code>ls -la</code> or ask <span class='x notranslate'>Acme</span>.</p>"
        '<div translate="no">Brand words</div><script>var x = "<b>no</b>";</script>'
        "<pre>keep   me</pre>"
    )
    message = HTML.segment(text)
    assert [to_tagged(s.parts) for s in message.segments] == ["Run <x1/> or ask <x2/>."]
    assert '<div translate="no">Brand words</div>' in message.pieces
    assert "<pre>keep   me</pre>" in message.pieces


def test_malformed_tags_that_cannot_pair_are_atoms() -> None:
    assert parts_of("Stray </b> and <i>unclosed <b>bold</i> tail") == [
        "Stray <x1/> and <g2>unclosed <x3/>bold</g2> tail"
    ]
    assert parts_of("<p>Unclosed <b>bold") == ["Unclosed <x1/>bold"]


def test_translated_words_are_written_back_as_html_text() -> None:
    [segment] = HTML.segment("<p>Tom &amp; <b>Jerry</b></p>").segments
    translated: Parts = ("1 < 2 & 3 > 2 ", Tag(1, "open"), "Jérôme", Tag(1, "close"))
    assert segment.render(translated) == "1 &lt; 2 &amp; 3 &gt; 2 <b>Jérôme</b>"
    assert segment.render(segment.parts) == "Tom &amp; <b>Jerry</b>"
    assert segment.source() == "Tom &amp; <b>Jerry</b>"


def test_xml_elements_are_all_inline_and_lines_apart_are_segments() -> None:
    text = "<doc>\n  <title>Hello</title>\n  <para>Text with <b>bold</b>.\n\nSecond.</para>\n</doc>"
    assert parts_of(text, XML) == ["Hello", "Text with <g1>bold</g1>.", "Second."]
    # An HTML block name means nothing in XML: <p> is inline there.
    assert parts_of("<t>One <p>two</p> three</t>", XML) == ["One <g1>two</g1> three"]
    assert parts_of("<t>Keep <x translate='no'>this</x> and <y/> that</t>", XML) == [
        "Keep <x1/> and <x2/> that"
    ]
