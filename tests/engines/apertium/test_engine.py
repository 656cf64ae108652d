"""Apertium through its real Debian pipelines."""

from __future__ import annotations

import json
import string
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import DATA, deadline_at_check
from tests.engines.apertium.test_stream import HOSTILE, LONG_WORD
from threadwise.engines.apertium import RESERVED, ApertiumEngine
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.tagged import Tag, to_tagged

CORPUS: list[str] = json.loads((DATA / "markdown_corpus.json").read_text(encoding="utf-8"))


def test_directions_direct_and_via_spanish(apertium: ApertiumEngine) -> None:
    directions = apertium.directions()
    assert {("en", "es"), ("es", "en"), ("fr", "es"), ("es", "pt")} <= directions
    assert ("en", "fr") in directions and ("pt", "en") in directions  # via Spanish
    assert not any("de" in d for d in directions)  # no German pair exists
    assert apertium.name_for("en", "fr") == "apertium:eng-spa+es-fr"
    assert apertium.name_for("en", "pt", "BR") == "apertium:eng-spa+es-pt_BR"


def test_translates_with_tags_kept(apertium: ApertiumEngine) -> None:
    segment = ("Please send me your ", Tag(1, "open"), "order number", Tag(1, "close"), ".")
    [result] = apertium.translate([segment], "en", "es")
    assert result is not None
    assert to_tagged(result) == "Complacer enviarme vuestro <g1>número de orden</g1>."


def test_markdown_corpus_keeps_its_structure(apertium: ApertiumEngine) -> None:
    segmenter = MarkdownSegmenter()
    for target in ("es", "fr", "pt"):
        for message in CORPUS:
            segmented = segmenter.segment(message)
            out = apertium.translate([s.parts for s in segmented.segments], "en", target)
            text = segmented.render(
                [
                    s.render(o) if o else s.source()
                    for s, o in zip(segmented.segments, out, strict=True)
                ]
            )
            assert all(o is not None for o in out), (target, message, out)
            assert structure_problems(message, text) == [], (target, message, text)
            assert text != message


# Every character Apertium's stream format reserves, the controls a user can paste, and
# Unicode's invisible ones.
TYPED = (
    "\\[]^$/@{}<>*#+~|"
    + "\x00\x01\x07\t\x0b\x0c\r\x1b\x7f\x85\xa0\xad\u200b\u200d\u202e\u2028\ufeff"
)


@pytest.mark.parametrize("target", ["es", "fr"])
def test_every_character_a_user_can_type_goes_through(
    apertium: ApertiumEngine, target: str
) -> None:
    """Escaped, ``^`` hung lrx-proc (it swallowed the end of the message) and ``*#~`` came
    back as the engine's own marks, dropped."""
    for char in TYPED:
        text = f"Thanks a lot{char} I have{char}{char}a house{char}."
        # A character that hung a program would have the watchdog fail the request.
        [result] = apertium.translate([(text,)], "en", target)
        assert result is not None, repr(char)
        translated = to_tagged(result)
        assert translated.count(char) == text.count(char), (repr(char), translated)
        assert "casa" in translated or "maison" in translated, (repr(char), translated)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.text(
        st.one_of(
            st.sampled_from(TYPED + string.ascii_letters + "     .,?!"),
            st.characters(exclude_categories=["Cs"]),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_any_text_round_trips_its_reserved_characters(apertium: ApertiumEngine, text: str) -> None:
    for target in ("es", "fr"):
        [result] = apertium.translate([(text,)], "en", target)
        assert result is not None, text
        for char in set("".join(RESERVED.findall(text))):
            assert to_tagged(result).count(char) == text.count(char), (text, result)


def test_a_long_request_stops_at_its_deadline(apertium: ApertiumEngine) -> None:
    # 400 exchanges: a minute's work or more, of which two run before the deadline passes
    # (checked before each); one that went on to the end would not time out.
    sentences = [("The house is red and the garden is green. " * 200,)] * 400
    with pytest.raises(ServiceError) as caught:
        apertium.translate(sentences, "en", "fr", deadline=deadline_at_check(3))
    assert caught.value.code is ErrorCode.REQUEST_TIMEOUT


def test_dictionaries_tell_which_language_knows_a_short_text(apertium: ApertiumEngine) -> None:
    assert {"en", "es", "fr", "pt"} <= apertium.analyzed_languages()
    assert apertium.known_words("Hello 0.", "en") == (1, 1)
    assert apertium.known_words("Hello 0.", "es") == (0, 1)
    assert apertium.known_words("Merci !", "fr") == (1, 1)
    assert apertium.known_words("Merci !", "en") == (0, 1)
    # Reserved characters are no words, and never reach the analyzer.
    assert apertium.known_words("^$ @", "en") == (0, 0)


def test_a_word_longer_than_any_goes_through_untouched() -> None:
    """Not looked up, not translated: within a watchdog far shorter than the seconds it took,
    no exchange hangs and no pipeline is restarted."""
    engine = ApertiumEngine(["en", "es", "fr", "pt"], timeout=0.5)
    try:
        engine.load()
        started = {name: pipeline._processes[0].pid for name, pipeline in engine._pipelines.items()}
        for language in sorted(engine.analyzed_languages()):
            units = engine.analyze(f"house {HOSTILE} house", language)
            assert units[1] == (LONG_WORD, f"*{LONG_WORD}"), (language, units)
            assert [u[0] for u in units] == ["house", LONG_WORD, "x", "house"], language
        assert engine.known_words(f"Hello {LONG_WORD}", "en") == (1, 2)
        [result] = engine.translate([("The house is red. " + HOSTILE,)], "en", "fr")
        assert result is not None
        assert to_tagged(result).startswith(f"La maison est rouge. {LONG_WORD}@")
        # Nine such requests beside others' short ones, as the outside probe sent them.
        with ThreadPoolExecutor(4) as pool:
            hostile = [pool.submit(engine.known_words, HOSTILE, "en") for _ in range(9)]
            short = [
                pool.submit(engine.translate, [("The house is red.",)], "en", "es")
                for _ in range(9)
            ]
            assert {f.result() for f in hostile} == {(0, 2)}
            assert all(f.result() == [("La casa es roja.",)] for f in short)
        now = {name: pipeline._processes[0].pid for name, pipeline in engine._pipelines.items()}
        assert now == started
    finally:
        engine.close()


def test_generates_words_from_lexical_forms(apertium: ApertiumEngine) -> None:
    assert apertium.generate(
        ["envoyer<vblex><imp><p2><sg>", "pouvoir<vbmod><cni><p2><sg>", "nothing<vblex><inf>"],
        "fr",
    ) == ["envoie", "pourrais", None]
    # Every Spanish dictionary is asked: "reiniciar" is not in eng-spa's.
    assert apertium.generate(["reiniciar<vblex><imp><p2><sg>"], "es") == ["reinicia"]
    assert apertium.generate(["poder<vbmod><pri><p2><sg>"], "pt", "BR") == ["podes"]
    assert apertium.generate([], "es") == []
    assert {"es", "fr", "pt"} <= apertium.generated_languages()


def test_only_the_warm_languages_pairs_start_with_it_the_others_at_their_first_message() -> None:
    engine = ApertiumEngine(["en", "es", "ca"], warm=["en", "es"])
    try:
        engine.load()
        assert {"eng-spa", "spa-eng", "en-analyzer", "es-analyzer"} <= set(engine._pipelines)
        assert not any("cat" in name or "ca-" in name for name in engine._pipelines)
        [result] = engine.translate([("The house is red.",)], "en", "ca")
        assert result is not None and "casa" in to_tagged(result)
        assert "eng-cat" in engine._pipelines
    finally:
        engine.close()


def test_of_the_cold_pairs_only_those_used_last_keep_running() -> None:
    engine = ApertiumEngine(["en", "es", "ca", "gl"], warm=["en", "es"], max_cold=1)
    try:
        engine.load()
        [catalan] = engine.translate([("The house is red.",)], "en", "ca")
        assert engine._pipelines["eng-cat"]._processes
        [galician] = engine.translate([("The house is red.",)], "en", "gl")
        # Catalan's was used longest ago: its processes are stopped, Galician's run.
        assert not engine._pipelines["eng-cat"]._processes
        assert engine._pipelines["en-gl"]._processes
        assert engine._pipelines["eng-spa"]._processes  # a warm pair is never stopped
        # Used again, it starts again, and answers as before.
        assert engine.translate([("The house is red.",)], "en", "ca") == [catalan]
        assert not engine._pipelines["en-gl"]._processes and galician is not None
    finally:
        engine.close()
