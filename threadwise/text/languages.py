"""Language tags (BCP 47) and language identification."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode
from threadwise.text.measured_languages import MEASURED, SERVED_TO_ALL, THRESHOLDS

# Languages a summary can be written in: the English summary's translation into them measured
# good (the model's; Apertium's into Catalan and Galician, which the summarizer uses there),
# or usable for German and Dutch, served before the labels.
SUMMARY_LANGUAGES: dict[str, str] = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "sv": "Swedish",
    "id": "Indonesian",
    "ca": "Catalan",
    "gl": "Galician",
}

# The English name of every language measured for translation (bench/translate.py: the
# NTREX-128 dev sets' languages), as the model is told it.
LANGUAGE_NAMES: dict[str, str] = {
    **SUMMARY_LANGUAGES,
    "ro": "Romanian",
    "pl": "Polish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "cs": "Czech",
    "sv": "Swedish",
    "da": "Danish",
    "nb": "Norwegian Bokmål",
    "tr": "Turkish",
    "el": "Greek",
    "hu": "Hungarian",
    "fi": "Finnish",
    "id": "Indonesian",
    "vi": "Vietnamese",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "ar": "Arabic",
    "hi": "Hindi",
    "he": "Hebrew",
}
# Languages messages can be translated between: English and those with a direction to or
# from English measured at a label (text.measured_languages); each direction's own label
# decides whom it is served to.
TRANSLATION_LANGUAGES: dict[str, str] = {
    "en": "English",
    **{code: LANGUAGE_NAMES[code] for code, labels in MEASURED.items() if labels.served},
}
# Languages the identifier tells apart: every one a message may be translated from, or a
# summary written in.
IDENTIFIED_LANGUAGES: tuple[str, ...] = tuple(
    dict.fromkeys([*SUMMARY_LANGUAGES, *TRANSLATION_LANGUAGES])
)
# py3langid's codes that differ from ours.
_PY3LANGID_CODES = {"nb": "no"}

_REGIONAL_NAMES: dict[tuple[str, str], str] = {
    ("pt", "BR"): "Brazilian Portuguese",
    ("pt", "PT"): "European Portuguese",
    ("en", "GB"): "British English",
    ("en", "US"): "American English",
    ("zh", "CN"): "Simplified Chinese",
    ("zh", "TW"): "Traditional Chinese",
}


@dataclass(frozen=True)
class LanguageTag:
    """A BCP 47 tag as the caller wrote it, with its primary language and region."""

    tag: str
    language: str
    region: str | None = None

    @classmethod
    def parse(cls, tag: str, field: str) -> LanguageTag:
        parts = tag.strip().replace("_", "-").split("-")
        language = parts[0].lower()
        if not (2 <= len(language) <= 3 and language.isalpha()):
            raise ServiceError(
                ErrorCode.UNSUPPORTED_LANGUAGE,
                f"{field} is {tag!r}, which is not a BCP 47 language tag; use a tag such as "
                f"'es-ES' or 'fr'. Supported: {', '.join(SUMMARY_LANGUAGES)}.",
            )
        region = next((p.upper() for p in parts[1:] if len(p) == 2 and p.isalpha()), None)
        return cls(tag=tag.strip(), language=language, region=region)

    @property
    def english_name(self) -> str:
        return language_name(self.language, self.region)


def language_name(code: str, region: str | None = None) -> str:
    """The English name of a language, regional where that matters (Brazilian Portuguese)."""
    if region and (code, region) in _REGIONAL_NAMES:
        return _REGIONAL_NAMES[(code, region)]
    return LANGUAGE_NAMES.get(code, code)


def summary_language(tag: str, field: str) -> LanguageTag:
    """Parse ``tag`` and check that summaries can be written in it."""
    parsed = LanguageTag.parse(tag, field)
    if parsed.language not in SUMMARY_LANGUAGES:
        raise ServiceError(
            ErrorCode.UNSUPPORTED_LANGUAGE,
            f"{field} asks for {tag!r}; summaries can be written in "
            f"{', '.join(SUMMARY_LANGUAGES)} (a region such as 'es-ES' is accepted).",
        )
    return parsed


def translation_languages(into: bool, experimental: bool = False) -> list[str]:
    """The languages messages can be translated into (``into``) or from: English, and those
    whose direction from (or into) English is served (``experimental``: experimental ones
    too, as an organization's policy may allow)."""
    allowed = SERVED_TO_ALL | ({"experimental"} if experimental else set())
    return [
        code
        for code in TRANSLATION_LANGUAGES
        if code == "en" or (MEASURED[code].into if into else MEASURED[code].out) in allowed
    ]


def translation_language(
    tag: str, field: str, experimental: bool = False, into: bool = True
) -> LanguageTag:
    """Parse ``tag`` and check that messages can be translated into it (or from it, not
    ``into``); an experimental direction only where ``experimental``."""
    parsed = LanguageTag.parse(tag, field)
    served = translation_languages(into, experimental)
    if parsed.language in served:
        return parsed
    way = "into" if into else "from"
    labels = MEASURED.get(parsed.language)
    label = labels and (labels.into if into else labels.out)
    chrf = labels and (labels.into_chrf if into else labels.out_chrf)
    if label == "experimental":
        name = LANGUAGE_NAMES[parsed.language]
        reason = (
            f"translation {way} {name} is experimental (chrF {chrf} on NTREX, below the "
            f"{THRESHOLDS['usable']:g} of 'usable'), and this organization's policy does not "
            "allow experimental languages (its operator allows them with `threadwise "
            "organizations set ORG --experimental-languages yes`)"
        )
    elif label is None and chrf is not None:
        reason = (
            f"translation {way} {LANGUAGE_NAMES[parsed.language]} measured chrF {chrf} on "
            f"NTREX, below the {THRESHOLDS['experimental']:g} served even as experimental"
        )
    else:
        reason = f"messages can be translated {way} {', '.join(served)}"
    raise ServiceError(
        ErrorCode.UNSUPPORTED_LANGUAGE,
        f"{field} asks for {tag[:40]!r}; {reason}. Use a served language (a region such as "
        "'pt-BR' is accepted): GET /languages lists the directions, engines and figures.",
    )


class LanguageIdentifier:
    """Identify the language of a text among ``IDENTIFIED_LANGUAGES``.

    py3langid restricted to those languages: on one-line messages it measured the most
    accurate of the packaged detectors, and among the fastest (bench/language_id.py, 29
    languages: 98.5% on 8-word lines, 89.7% on 3 words, 90% on 100 chat messages, 21-37 µs;
    lingua 94.3% / 85.3% / 87%, ~230 µs). Its probability tells a sure answer from a guess:
    at 0.7 or more it was right in 67 of 67 chat messages, 5,440 of 5,441 8-word lines and
    4,193 of 4,201 3-word ones (at 0.6: 1 wrong of 76 chat messages).
    """

    SURE = 0.7

    def __init__(self, languages: tuple[str, ...] = IDENTIFIED_LANGUAGES) -> None:
        self._languages = list(languages)
        self._identifier: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        with self._lock:
            if self._identifier is None:
                from py3langid.langid import MODEL_FILE
                from py3langid.langid import LanguageIdentifier as Py3LangId

                identifier = Py3LangId.from_model_file(MODEL_FILE, norm_probs=True)
                identifier.set_languages([_PY3LANGID_CODES.get(c, c) for c in self._languages])
                self._identifier = identifier
            return self._identifier

    def load(self) -> None:
        self._get()

    def detect(self, text: str) -> str | None:
        """The ISO 639-1 code of the most likely language, or None for a text without words."""
        return self.detect_with_probability(text)[0]

    def detect_with_probability(self, text: str) -> tuple[str | None, float]:
        if not any(c.isalpha() for c in text):
            return None, 0.0
        code, probability = self._get().classify(text)
        return _OUR_CODES.get(str(code), str(code)), float(probability)


_OUR_CODES = {theirs: ours for ours, theirs in _PY3LANGID_CODES.items()}
