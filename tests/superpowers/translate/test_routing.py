from __future__ import annotations

import pytest

from threadwise.superpowers.translate.routing import (
    NO_ENGINE,
    RouteError,
    TranslationRouter,
    draft_engine,
    uses_llm,
)

AVAILABLE = {
    "apertium": {("en", "es"), ("es", "en")},
    "bergamot": {("en", "pt")},
    "llm": {("en", "es"), ("es", "en"), ("en", "pt"), ("en", "de")},
}
TABLE = {
    "directions": {
        "en-es": {
            "quality": "llm",
            "fast": "apertium",
            "candidates": {
                "apertium": {"chrF": 49.0, "BLEU": 20.0, "secondsPerSentence": 0.003},
                "llm": {"chrF": 53.4, "BLEU": 24.0, "secondsPerSentence": 1.9},
            },
        },
        "en-pt": {"quality": "ghost", "fast": "bergamot", "candidates": {}},
    }
}


def test_table_choices_and_figures() -> None:
    router = TranslationRouter(AVAILABLE, TABLE)
    route = router.route("en", "es")
    assert route is not None
    assert (route.quality, route.fast) == ("llm", "apertium")
    assert route.figures["llm"].chrf == 53.4
    assert router.route("fr", "en") is None


def test_unavailable_or_unmeasured_choices_fall_back_sensibly() -> None:
    router = TranslationRouter(AVAILABLE, TABLE)
    en_pt = router.route("en", "pt")
    assert en_pt is not None and en_pt.fast == "bergamot" and en_pt.quality == "llm"
    en_de = router.route("en", "de")
    assert en_de is not None and (en_de.quality, en_de.fast) == ("llm", NO_ENGINE)  # no German MT


def test_configuration_overrides_the_table() -> None:
    router = TranslationRouter(AVAILABLE, TABLE, {"en-es": {"quality": "llm+apertium"}})
    route = router.route("en", "es")
    assert route is not None and route.quality == "llm+apertium"
    with pytest.raises(RouteError, match="bergamot"):
        TranslationRouter(AVAILABLE, TABLE, {"en-es": {"fast": "bergamot"}})
    with pytest.raises(RouteError, match="unknown directions"):
        TranslationRouter(AVAILABLE, TABLE, {"xx-es": {"fast": "apertium"}})


def test_engine_names() -> None:
    assert uses_llm("llm+apertium") and uses_llm("llm") and not uses_llm("apertium")
    assert draft_engine("llm+bergamot") == "bergamot" and draft_engine("llm") is None


def test_the_fast_tier_never_runs_on_the_model() -> None:
    """Where no fast engine has the direction, the fast tier returns text as written."""
    table = {"directions": {"en-de": {"quality": "llm", "fast": "llm", "candidates": {}}}}
    router = TranslationRouter(AVAILABLE, table)
    en_de = router.route("en", "de")
    assert en_de is not None and (en_de.quality, en_de.fast) == ("llm", NO_ENGINE)
    assert all(not uses_llm(route.fast) for route in router.routes())
    with pytest.raises(RouteError, match="milliseconds"):
        TranslationRouter(AVAILABLE, TABLE, {"en-es": {"fast": "llm+apertium"}})
    with pytest.raises(RouteError, match="cannot translate"):
        TranslationRouter(AVAILABLE, TABLE, {"en-es": {"quality": NO_ENGINE}})
    silenced = TranslationRouter(AVAILABLE, TABLE, {"en-es": {"fast": NO_ENGINE}}).route("en", "es")
    assert silenced is not None and silenced.fast == NO_ENGINE
    # The table as committed: German has no fast engine.
    committed = TranslationRouter({**AVAILABLE, "llm": {("de", "en"), ("en", "de")}})
    assert [r.fast for r in committed.routes() if "de" in (r.source, r.target)] == [NO_ENGINE] * 2


def test_a_translation_in_a_register_goes_to_the_model_in_the_quality_tier() -> None:
    table = {"directions": {"en-pt": {"quality": "bergamot", "fast": "bergamot"}}}
    router = TranslationRouter(AVAILABLE, table)
    en_pt = router.route("en", "pt")
    assert en_pt is not None and en_pt.quality == "bergamot"
    assert en_pt.engine("quality", registered=True) == "llm"
    assert en_pt.engine("fast", registered=True) == "bergamot"  # says it did not apply it
    assert en_pt.engine("quality") == "bergamot"
    # Where the model does not translate a direction, its quality engine stays.
    only_machine = TranslationRouter({"bergamot": {("en", "pt")}}, table).route("en", "pt")
    assert only_machine is not None and only_machine.engine("quality", True) == "bergamot"


LABELLED = {
    "labels": {"thresholds": {"good": 45.0, "usable": 35.0, "experimental": 20.0}},
    "directions": {
        "en-es": {
            "quality": "llm",
            "fast": "apertium",
            "label": "good",
            "candidates": {
                "apertium": {"chrF": 40.0, "BLEU": 20.0, "secondsPerSentence": 0.003},
                "llm": {"chrF": 53.4, "BLEU": 24.0, "secondsPerSentence": 1.9},
            },
        },
        "es-en": {
            "quality": "llm",
            "fast": "apertium",
            "label": "good",
            "candidates": {
                "apertium": {"chrF": 49.0, "BLEU": 20.0, "secondsPerSentence": 0.003},
                "llm": {"chrF": 58.0, "BLEU": 24.0, "secondsPerSentence": 1.9},
            },
        },
        "en-de": {
            "quality": "llm",
            "fast": "none",
            "label": "experimental",
            "candidates": {"llm": {"chrF": 30.0, "BLEU": 9.0, "secondsPerSentence": 2.0}},
        },
        "en-pt": {
            "quality": "llm",
            "fast": "bergamot",
            "label": None,
            "candidates": {
                "bergamot": {"chrF": 60.0, "BLEU": 40.0, "secondsPerSentence": 0.02},
                "llm": {"chrF": 15.0, "BLEU": 1.0, "secondsPerSentence": 2.0},
            },
        },
    },
}
WITH_SPANISH_TO_GERMAN = {**AVAILABLE, "llm": {*AVAILABLE["llm"], ("es", "de")}}


def test_each_tier_has_the_label_of_its_engine() -> None:
    route = TranslationRouter(AVAILABLE, LABELLED).route("en", "es")
    assert route is not None and route.labels == {"quality": "good", "fast": "usable"}
    assert route.served("quality") and route.served("fast")


def test_an_experimental_direction_is_served_only_where_allowed() -> None:
    route = TranslationRouter(AVAILABLE, LABELLED).route("en", "de")
    assert route is not None and route.labels["quality"] == "experimental"
    assert not route.served("quality")
    assert route.served("quality", experimental=True)
    assert route.labels["fast"] is None and not route.served("fast", experimental=True)


def test_the_tables_label_stands_for_its_quality_engine() -> None:
    # Capped or below every threshold, as bench.routing_table wrote it.
    route = TranslationRouter(AVAILABLE, LABELLED).route("en", "pt")
    assert route is not None and route.quality == "llm" and route.labels["quality"] is None
    assert not route.served("quality", experimental=True)
    assert route.labels["fast"] == "good" and route.served("fast")


def test_a_direction_between_two_other_languages_has_its_worse_legs_label() -> None:
    route = TranslationRouter(WITH_SPANISH_TO_GERMAN, LABELLED).route("es", "de")
    assert route is not None and route.estimated
    assert route.labels == {"quality": "experimental", "fast": None}
    assert not route.served("quality") and route.served("quality", experimental=True)


def test_an_unmeasured_direction_is_not_judged() -> None:
    route = TranslationRouter(AVAILABLE, TABLE).route("en", "de")
    assert route is not None and route.labels == {"fast": None}
    assert route.served("quality") and not route.estimated
