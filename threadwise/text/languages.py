"""Language tags (BCP 47) and language identification."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

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

_REGIONAL_NAMES: dict[tuple[str, str], str] = {
    ("pt", "BR"): "Brazilian Portuguese",
    ("pt", "PT"): "European Portuguese",
    ("en", "GB"): "British English",
    ("en", "US"): "American English",
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
    return SUMMARY_LANGUAGES.get(code, code)


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
    """Identify the language of a text among ``SUMMARY_LANGUAGES`` (lingua, models preloaded)."""

    def __init__(self, languages: tuple[str, ...] = tuple(SUMMARY_LANGUAGES)) -> None:
        self._languages = [
            Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in languages
        ]
        self._detector: LanguageDetector | None = None
        self._lock = threading.Lock()

    def _get(self) -> LanguageDetector:
        with self._lock:
            if self._detector is None:
                self._detector = (
                    LanguageDetectorBuilder.from_languages(*self._languages)
                    .with_preloaded_language_models()
                    .build()
                )
            return self._detector

    def load(self) -> None:
        self._get()

    def detect(self, text: str) -> str | None:
        """The ISO 639-1 code of the most likely language, or None when nothing is clear."""
        language = self._get().detect_language_of(text)
        return language.iso_code_639_1.name.lower() if language else None
