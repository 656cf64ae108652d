"""What the translate superpower needs of a machine translation engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from threadwise.deadlines import Deadline
from threadwise.text.tagged import Parts


class TranslationEngineError(RuntimeError):
    """An engine failed (a process died, a model did not load); the caller may fall back."""


class MachineTranslator(Protocol):
    """Translates segments (text with tags) between ISO 639-1 languages.

    Each translated segment carries the same tags as its source, moved with their words;
    ``None`` for a segment whose tags could not be kept (the caller then splits it).
    Engines are thread-safe; a long call checks its ``deadline`` as it goes.
    """

    @property
    def kind(self) -> str:
        """Short engine name used in the routing table: ``apertium``, ``bergamot``."""
        ...

    def directions(self) -> frozenset[tuple[str, str]]: ...

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        """``engine:model`` for one direction, reported with each result."""
        ...

    def load(self) -> None:
        """Load models and start processes, so that the first request is fast."""
        ...

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
    ) -> list[Parts | None]: ...

    def close(self) -> None: ...


class Dictionaries(Protocol):
    """Monolingual dictionaries: which language's words a short text is made of."""

    def analyzed_languages(self) -> frozenset[str]: ...

    def known_words(self, text: str, language: str) -> tuple[int, int]:
        """How many of the words of ``text`` the ``language`` dictionary knows, of how many."""
        ...
