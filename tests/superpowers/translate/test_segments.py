"""A group's messages through one engine, segment by segment, their markup kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from threadwise.deadlines import Deadline
from threadwise.protocol import Formality
from threadwise.superpowers.translate.job import Wording
from threadwise.superpowers.translate.llm import StandIn
from threadwise.superpowers.translate.registers import RegisterKeeper
from threadwise.superpowers.translate.segments import (
    STOOD_IN,
    UNCHANGED,
    Translated,
    translate_segmented,
)
from threadwise.text.html_segments import HtmlSegmenter
from threadwise.text.languages import LanguageTag
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.plain_segments import PlainSegmenter
from threadwise.text.tagged import Parts, Tag

SPANISH = LanguageTag("es", "es")
Rule = Callable[[Parts], Parts | None]


def upper(parts: Parts) -> Parts:
    return tuple(p if isinstance(p, Tag) else p.upper() for p in parts)


@dataclass
class FakeBackend:
    """Translates each segment by ``rule``, and records what it was sent."""

    rule: Rule = upper
    kind: str = "fake"
    name: str = "fake:en-es"
    source: str = "en"
    target: LanguageTag = SPANISH
    uses_model: bool = False
    stand_in: str | None = None
    sent: list[list[Parts]] = field(default_factory=list)

    def keeper(self, formality: Formality) -> RegisterKeeper | None:
        return None

    def translate(
        self, segments: Sequence[Parts], deadline: Deadline | None, wording: Wording
    ) -> list[Parts | None]:
        self.sent.append(list(segments))
        return [self.rule(parts) for parts in segments]


def translated(backend: FakeBackend, *texts: str) -> list[Translated]:
    segmenter = MarkdownSegmenter()
    return translate_segmented(backend, [segmenter.segment(text) for text in texts])


def test_each_message_is_translated_with_its_markdown_and_one_call_for_all() -> None:
    backend = FakeBackend()
    results = translated(backend, "Send **the form** today.", "- one\n- two", "Thanks")
    assert results == [
        Translated("SEND **THE FORM** TODAY.", "fake:en-es"),
        Translated("- ONE\n- TWO", "fake:en-es"),
        Translated("THANKS", "fake:en-es"),
    ]
    assert len(backend.sent) == 1 and len(backend.sent[0]) == 4


def test_a_segment_whose_tags_were_lost_is_translated_split_at_its_markup() -> None:
    def loses_tags(parts: Parts) -> Parts | None:
        return None if any(isinstance(p, Tag) for p in parts) else upper(parts)

    backend = FakeBackend(loses_tags)
    [result] = translated(backend, "Send **the form** today.")
    assert result == Translated("SEND **THE FORM** TODAY.", "fake:en-es")
    assert [[text for (text,) in call] for call in backend.sent[1:]] == [
        ["Send", "the form", "today."]
    ]


def test_a_translation_that_adds_protected_text_leaves_the_segment_as_written() -> None:
    def adds_a_link(parts: Parts) -> Parts:
        return (*upper(parts), " https://evil.example")

    [result] = translated(FakeBackend(adds_a_link), "Send **the form** today.")
    assert result.text == "Send **the form** today."


def test_a_line_the_fast_engine_stood_in_for_is_named_so() -> None:
    backend = FakeBackend(lambda parts: StandIn(upper(parts)), stand_in="apertium:eng-spa")
    [result] = translated(backend, "Thanks")
    assert result == Translated("THANKS", "apertium:eng-spa" + STOOD_IN)


def test_a_message_without_words_is_returned_as_it_is() -> None:
    backend = FakeBackend()
    assert translated(backend, "👍") == [Translated("👍", UNCHANGED)]


def test_a_message_the_engine_gave_back_as_written_is_not_reported_as_translated() -> None:
    # LibreTranslate's most reported defect: an untranslated message said to be translated.
    backend = FakeBackend(lambda parts: parts)
    results = translated(backend, "Where is **my order**?", "Thanks")
    assert results == [
        Translated("Where is **my order**?", UNCHANGED),
        Translated("Thanks", UNCHANGED),
    ]


def test_a_loop_the_engine_fell_into_is_cut() -> None:
    def loops(parts: Parts) -> Parts:
        return tuple(p if isinstance(p, Tag) else "EL PEDIDO " * 6 + p.upper() for p in parts)

    [result] = translated(FakeBackend(loops), "It arrived.")
    assert result == Translated("EL PEDIDO IT ARRIVED.", "fake:en-es")


def test_html_is_translated_in_its_text_its_markup_copied() -> None:
    backend = FakeBackend()
    text = (
        '<p>Send <a href="https://example.com/?a=1&amp;b=2">the <b>form</b></a> &amp; wait.'
        "<br>Thanks</p><pre>keep me</pre>"
    )
    [done] = translate_segmented(backend, [HtmlSegmenter().segment(text)])
    assert done.text == (
        '<p>SEND <a href="https://example.com/?a=1&amp;b=2">THE <b>FORM</b></a> &amp; WAIT.'
        "<br>THANKS</p><pre>keep me</pre>"
    )


def test_an_html_segment_that_lost_its_tags_is_split_and_its_words_encoded() -> None:
    def lose_tags(parts: Parts) -> Parts | None:
        if any(isinstance(p, Tag) for p in parts):
            return None
        return ("<" + "".join(str(p) for p in parts).upper() + " & co>",)

    [done] = translate_segmented(
        FakeBackend(lose_tags), [HtmlSegmenter().segment("<p>Hi <i>you</i> there</p>")]
    )
    assert done.text == (
        "<p>&lt;HI &amp; co&gt; <i>&lt;YOU &amp; co&gt;</i> &lt;THERE &amp; co&gt;</p>"
    )


def test_plain_text_is_written_back_unescaped_and_unchecked_as_markdown() -> None:
    backend = FakeBackend(
        lambda parts: tuple(p if isinstance(p, Tag) else f"1. *{p}*" for p in parts)
    )
    [done] = translate_segmented(backend, [PlainSegmenter().segment("Hi\nyou\n\n# there")])
    assert done.text == "1. *Hi*\n1. *you*\n\n1. *# there*"


def test_direction_marks_stay_where_they_were() -> None:
    [result] = translated(FakeBackend(), "Order \u200f4471\u200f has \u2066ABC-12\u2069 in it.")
    assert result.text == "ORDER \u200f4471\u200f HAS \u2066ABC-12\u2069 IN IT."
