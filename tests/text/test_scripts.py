"""Scripts: of a language, of a letter, and a translation that drifted into a third one."""

from __future__ import annotations

from threadwise.text.scripts import drifted, script_of, scripts_of


def test_each_language_has_its_scripts_and_each_letter_its_own() -> None:
    assert scripts_of("ja") == {"Han", "Hiragana", "Katakana"} and scripts_of("zh-TW") == {"Han"}
    assert scripts_of("uk") == {"Cyrillic"} and scripts_of("sr-Latn") == {"Cyrillic", "Latin"}
    assert scripts_of("es") == {"Latin"} and scripts_of("pt_BR") == {"Latin"}
    letters: dict[str, str | None] = {
        "a": "Latin",
        "ñ": "Latin",
        "\uff21": "Latin",
        "東": "Han",
        "の": "Hiragana",
    }
    letters |= {"ｶ": "Katakana", "한": "Hangul", "ع": "Arabic", "ש": "Hebrew", "ह": "Devanagari"}
    letters |= {"λ": "Greek", "ж": "Cyrillic", "ก": "Thai", "ა": None}
    assert {letter: script_of(letter) for letter in letters} == letters


def test_a_translation_mostly_in_a_third_script_drifted() -> None:
    original = "My parcel 7781 has not arrived yet."
    assert drifted("我的包裹7781还没有到。", "es", original)
    assert drifted("Mi paquete 我的包裹还没有到达", "es", original)  # the most of its letters
    assert not drifted("Mi paquete 7781 todavía no ha llegado.", "es", original)
    assert not drifted("Mi paquete de 東京タワー no ha llegado.", "es", original)
    # A name in the original's script kept, a copy, a few letters: not this check's.
    assert not drifted("東京タワー", "es", "東京タワー")
    assert not drifted("OK 好", "es", "OK")
    assert not drifted("Мой посылка ещё не пришла.", "ru", original)
    assert drifted("Моя посилка ще не прийшла.", "ja", original)
