from __future__ import annotations

import pytest

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.text.languages import (
    IDENTIFIED_LANGUAGES,
    LANGUAGE_NAMES,
    SUMMARY_LANGUAGES,
    TRANSLATION_LANGUAGES,
    LanguageIdentifier,
    LanguageTag,
    language_name,
    summary_language,
    translation_language,
    translation_languages,
)
from threadwise.text.measured_languages import MEASURED


def test_tags_keep_the_callers_form_and_split_language_and_region() -> None:
    tag = LanguageTag.parse("pt_br", "f")
    assert (tag.language, tag.region) == ("pt", "BR")
    assert tag.english_name == "Brazilian Portuguese"
    assert summary_language("es-ES", "f").english_name == "Spanish"


def test_unsupported_language_lists_supported_ones() -> None:
    with pytest.raises(ServiceError) as caught:
        summary_language("xx-YY", "session.channel.language")
    assert caught.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
    assert "session.channel.language" in caught.value.message
    assert "es" in caught.value.message


def test_garbage_tag_is_unsupported() -> None:
    with pytest.raises(ServiceError) as caught:
        LanguageTag.parse("123", "f")
    assert caught.value.code is ErrorCode.UNSUPPORTED_LANGUAGE


def test_identifier_tells_languages_apart() -> None:
    identifier = LanguageIdentifier()
    assert identifier.detect("El cliente pidió un reembolso por el pedido duplicado.") == "es"
    assert identifier.detect("Der Kunde hat eine Rückerstattung beantragt.") == "de"
    assert identifier.detect("The customer asked for a refund.") == "en"


def test_short_messages_are_identified() -> None:
    identifier = LanguageIdentifier()
    assert identifier.detect("¿Dónde está mi pedido?") == "es"
    assert identifier.detect("Obrigado, já enviei!") == "pt"
    assert identifier.detect("👍 :)") is None
    _, probability = identifier.detect_with_probability("ok")
    assert probability < LanguageIdentifier.SURE  # a guess, which the caller treats as one


def test_translation_languages_name_the_supported_ones() -> None:
    assert translation_language("pt-BR", "f").english_name == "Brazilian Portuguese"
    assert translation_language("it", "f").english_name == "Italian"
    with pytest.raises(ServiceError) as caught:
        translation_language("xx", "request.settings.targetLanguages[0]")
    assert caught.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
    assert "en, es, fr, de, pt, it" in caught.value.message
    assert "targetLanguages[0]" in caught.value.message


def label_of(code: str, into: bool) -> str | None:
    labels = MEASURED[code]
    return labels.into if into else labels.out


@pytest.mark.parametrize("into", [True, False])
def test_an_experimental_direction_is_refused_with_its_figure_unless_allowed(into: bool) -> None:
    code = next(c for c in MEASURED if label_of(c, into) == "experimental")
    with pytest.raises(ServiceError) as caught:
        translation_language(code, "f", into=into)
    assert caught.value.code is ErrorCode.UNSUPPORTED_LANGUAGE
    labels = MEASURED[code]
    chrf = labels.into_chrf if into else labels.out_chrf
    assert f"is experimental (chrF {chrf}" in caught.value.message
    assert "--experimental-languages yes" in caught.value.message
    assert translation_language(code, "f", experimental=True, into=into).language == code
    assert code in translation_languages(into, experimental=True)
    assert code not in translation_languages(into)


def test_a_direction_below_every_label_is_refused_even_where_experimental_ones_are_allowed() -> (
    None
):
    code = next(c for c in MEASURED if MEASURED[c].into is None and MEASURED[c].served)
    with pytest.raises(ServiceError) as caught:
        translation_language(code, "f", experimental=True)
    assert f"measured chrF {MEASURED[code].into_chrf}" in caught.value.message
    # Its messages can still be translated into English.
    assert translation_language(code, "f", experimental=True, into=False).language == code


def test_served_languages_follow_the_measured_labels() -> None:
    served = translation_languages(into=True)
    assert served[:5] == ["en", "es", "fr", "de", "pt"]
    assert all(MEASURED[c].into in {"good", "usable"} for c in served if c != "en")
    assert set(TRANSLATION_LANGUAGES) == {"en"} | {c for c in MEASURED if MEASURED[c].served}
    assert set(IDENTIFIED_LANGUAGES) >= set(TRANSLATION_LANGUAGES) | set(SUMMARY_LANGUAGES)


def test_every_measured_language_is_named_and_identified_by_our_code() -> None:
    """Norwegian Bokmål is ``nb`` here and in BCP 47, ``no`` to py3langid; scripts of their
    own (Cyrillic, Greek, CJK, Arabic, Hebrew, Devanagari) are told apart."""
    assert language_name("nb") == "Norwegian Bokmål" and language_name("zh", "CN").endswith(
        "Chinese"
    )
    assert all(name != code for code, name in LANGUAGE_NAMES.items())
    identifier = LanguageIdentifier(tuple(LANGUAGE_NAMES))
    samples = {
        "nb": "Jeg lurer på hvor pakken min er nå, den skulle komme i går.",
        "uk": "Де моє замовлення? Воно мало прийти вчора.",
        "el": "Πού είναι η παραγγελία μου; Έπρεπε να έρθει χθες.",  # noqa: RUF001
        "ja": "私の注文はどこですか？昨日届くはずでした。",  # noqa: RUF001
        "ar": "أين طلبي؟ كان من المفترض أن يصل أمس.",
        "he": "איפה ההזמנה שלי? היא הייתה אמורה להגיע אתמול.",
        "hi": "मेरा ऑर्डर कहाँ है? उसे कल आना था।",
    }
    assert {code: identifier.detect(text) for code, text in samples.items()} == {
        code: code for code in samples
    }
