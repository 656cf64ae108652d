"""Spans of one text: those that do not overlap, kept in order, and a text's normal form for
detectors, whose spans map back to the text."""

from __future__ import annotations

import bisect
import re
import unicodedata

from threadwise.text.found import Found


class DisjointSpans:
    """Spans taken one by one, each only if it overlaps none taken before. Whether it does is
    found by bisection: comparing each with every span taken is quadratic in a long text."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def take(self, start: int, end: int) -> bool:
        """Take ``start:end`` if it overlaps no span taken; whether it did."""
        if not self.free(start, end):
            return False
        at = bisect.bisect_left(self._starts, end)
        self._starts.insert(at, start)
        self._ends.insert(at, end)
        return True

    def free(self, start: int, end: int) -> bool:
        """Whether ``start:end`` overlaps no span taken."""
        before = bisect.bisect_left(self._starts, end)  # the spans that start before its end
        # Their ends are in order too: the last of them ends last.
        return not before or self._ends[before - 1] <= start


# Dashes that read as a hyphen (hyphen, non-breaking hyphen, figure dash, en and em dash,
# minus): a card or an IBAN copied from a word processor has them between its groups.
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))
# Characters kept as they are: NFKC would make the ordinal indicators of "2º Esq." and "5º 2ª"
# the letters o and a, which an address is not written with.
_KEPT = frozenset("ºª")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


class NormalizedText:
    """``original`` as detectors read it (``text``): in NFKC (full-width digits and letters
    become ASCII, no-break and narrow spaces a space; ``_KEPT`` aside), without the
    characters that show nothing (zero-width spaces and joiners, the word joiner, byte-order
    marks, soft hyphens, direction marks: Unicode's format characters), and with every dash a
    hyphen. ``span`` maps a span of ``text`` back to ``original``."""

    def __init__(self, original: str) -> None:
        self.original = original
        # Where each character of ``text`` came from; None when ``text`` is ``original``.
        self._starts: list[int] | None = None
        self._ends: list[int] = []
        if original.isascii():  # the usual case: ASCII is its own normal form
            self.text = original
            return
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        position = 0
        for run in _NOT_ASCII.finditer(original):
            chars += original[position : run.start()]
            starts += range(position, run.start())
            ends += range(position + 1, run.start() + 1)
            for index in range(run.start(), run.end()):
                _add(original, index, chars, starts, ends)
            position = run.end()
        chars += original[position:]
        starts += range(position, len(original))
        ends += range(position + 1, len(original) + 1)
        self.text = "".join(chars)
        self._starts, self._ends = starts, ends

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where ``text[start:end]`` (not empty) came from in ``original``: the invisible characters
        inside it, and those just before it, are part of it (a value pasted with a zero-width
        character in front of it goes whole)."""
        if self._starts is None:
            return start, end
        first = self._starts[start]
        if start:
            first = min(first, self._ends[start - 1])
        return first, self._ends[end - 1]

    def in_original(self, found: Found) -> Found:
        """``found`` in ``text`` as it is in ``original``."""
        start, end = self.span(found.start, found.end)
        return Found(found.kind, start, end, self.original[start:end])


def _add(original: str, index: int, chars: list[str], starts: list[int], ends: list[int]) -> None:
    """Append the normal form of ``original[index]`` and where it came from."""
    char = original[index]
    if _invisible(char):
        return
    cluster_start = index
    if unicodedata.combining(char) and starts:
        # A combining accent (José written e + U+0301) composes with the character before
        # it: that character's normal form is made again with it.
        cluster_start = starts[-1]
        while starts and starts[-1] == cluster_start:
            chars.pop()
            starts.pop()
            ends.pop()
    cluster = "".join(c for c in original[cluster_start : index + 1] if not _invisible(c))
    normal = cluster if char in _KEPT else unicodedata.normalize("NFKC", cluster)
    normal = normal.translate(_DASHES)
    chars += normal
    starts += [cluster_start] * len(normal)
    ends += [index + 1] * len(normal)


def _invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf"
