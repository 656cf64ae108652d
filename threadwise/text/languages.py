"""Language tags (BCP 47) and language identification."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode

# Languages a summary can be written in: ones the default model writes acceptably and
# the detector can tell apart, so that the output language can be checked.
SUMMARY_LANGUAGES: dict[str, str] = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
}

# Languages messages can be translated between: those with evaluation data (NTREX) to choose
# each direction's engines by measurement.
TRANSLATION_LANGUAGES: dict[str, str] = {
    code: SUMMARY_LANGUAGES[code] for code in ("en", "es", "fr", "de", "pt")
}

# The English name of every language measured for translation (bench/translate.py: the
# NTREX-128 dev sets' languages), as the model is told it.
LANGUAGE_NAMES: dict[str, str] = {
    **SUMMARY_LANGUAGES,
    "ca": "Catalan",
    "gl": "Galician",
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


def translation_language(tag: str, field: str) -> LanguageTag:
    """Parse ``tag`` and check that messages can be translated into it."""
    parsed = LanguageTag.parse(tag, field)
    if parsed.language not in TRANSLATION_LANGUAGES:
        supported = ", ".join(TRANSLATION_LANGUAGES)
        raise ServiceError(
            ErrorCode.UNSUPPORTED_LANGUAGE,
            f"{field} asks for {tag!r}; messages can be translated into {supported} (a region "
            "such as 'pt-BR' is accepted). GET /languages lists the directions and engines.",
        )
    return parsed


class LanguageIdentifier:
    """Identify the language of a text among ``SUMMARY_LANGUAGES``.

    py3langid restricted to those languages: on short chat messages it measured the most
    accurate of the packaged detectors, and among the fastest (bench/language_id.py:
    96% on 100 chat messages, 92% on 3-word snippets, ~50 µs; lingua 91% / 89%, ~250 µs).
    Its probability tells a sure answer from a guess: at 0.8 or more it was never wrong.
    """

    SURE = 0.8

    def __init__(self, languages: tuple[str, ...] = tuple(SUMMARY_LANGUAGES)) -> None:
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
