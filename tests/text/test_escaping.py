from __future__ import annotations

from threadwise.text.escaping import encoder, escape_html, escape_markdown, escaper


def test_each_format_writes_words_its_own_way() -> None:
    words = "1. a < b & *c*"
    assert escape_html(words) == "1. a &lt; b &amp; *c*"
    assert escaper("markdown")(words) == escape_markdown(words) == "1\\. a \\< b & \\*c\\*"
    assert escaper("html")(words) == escaper("xml")(words) == escape_html(words)
    assert escaper("plain")(words) == words
    assert encoder("markdown") is None and encoder("plain") is None
