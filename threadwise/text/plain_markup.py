"""Carry tags through an engine that only knows plain text (Bergamot mangles HTML).

Atoms become placeholder words (``ZZ3``) that neural engines copy. Pairs cannot be sent
that way (measured: the engine collapses ``ZZ1 order number ZZ2`` to ``número ZZ1 ZZ2``),
so the sentence goes without them, each pair's inner words are translated too, in the same
call, and the pair is put around the words of the sentence's translation that best match
its inner translation. When that is unclear, the segment is reported as not kept and the
caller translates it split at its markup instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from threadwise.text.tagged import Part, Parts, Tag, has_words

PlainTranslate = Callable[[list[str]], list[str]]

_PLACEHOLDER = re.compile(r"ZZ(\d+)")
_WORD = re.compile(r"\S+")
_EDGE_PUNCTUATION = ".,;:!?¡¿\"'«»“”()"
# How similar the best window must be to the pair's own translation.
MIN_SIMILARITY = 0.5
# A phrase rarely ends with one of these, but a shorter window ending with one often scores
# better ("número de" for "número do pedido" in "número de encomenda").
_DANGLING = frozenset(
    {"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "with"}
    | {"de", "do", "da", "dos", "das", "o", "os", "as", "e", "em", "no", "na", "para", "por", "com"}
)
_DANGLING_PENALTY = 0.2
# Each pair is put back by comparing its translation with every few words of the sentence's:
# pairs times words comparisons (about 20 µs each). A segment that would need more (a
# paragraph of many emphasized words: 4,000 characters took 9 s) is reported as not kept at
# once, and translated split at its markup, which takes time in proportion to it.
MAX_COMPARISONS = 2_000


@dataclass(frozen=True)
class _Pair:
    id: int
    inner: str  # the words inside, atoms as placeholders, inner pairs dropped
    children: tuple[_Pair, ...]
    atoms: tuple[int, ...]  # atom ids inside


def translate_plain(segments: Sequence[Parts], translate: PlainTranslate) -> list[Parts | None]:
    """Translate ``segments`` with a plain-text engine, in one call, keeping their tags."""
    requests: list[str] = []
    plans: list[list[_Pair] | None] = []
    for parts in segments:
        pairs = _pairs(parts)
        text = _placeholders(parts)
        if len(_flatten(pairs)) * len(_WORD.findall(text)) > MAX_COMPARISONS:
            plans.append(None)
            continue
        plans.append(pairs)
        requests.append(text)
        requests.extend(p.inner for p in _flatten(pairs) if has_words((p.inner,)))
    # The answers in the order asked: each segment's sentence, then its pairs' words.
    answers = iter(translate(requests) if requests else [])
    results: list[Parts | None] = []
    for parts, plan in zip(segments, plans, strict=True):
        if plan is None:
            results.append(None)
            continue
        sentence = next(answers)
        translations = {
            p.id: next(answers) if has_words((p.inner,)) else p.inner for p in _flatten(plan)
        }
        results.append(_rebuild(parts, sentence, plan, translations))
    return results


def _placeholders(parts: Sequence[Part]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Tag):
            if part.kind == "atom":
                out.append(f"ZZ{part.id}")
        else:
            out.append(part)
    return "".join(out)


def _pairs(parts: Sequence[Part]) -> list[_Pair]:
    """The pair tree of a segment."""
    top: list[_Pair] = []
    stack: list[tuple[int, list[Part], list[_Pair]]] = []
    for part in parts:
        if isinstance(part, Tag) and part.kind == "open":
            stack.append((part.id, [], []))
            continue
        if isinstance(part, Tag) and part.kind == "close":
            pair_id, inner, children = stack.pop()
            atoms = tuple(p.id for p in inner if isinstance(p, Tag) and p.kind == "atom")
            pair = _Pair(pair_id, _placeholders(inner).strip(), tuple(children), atoms)
            if stack:
                stack[-1][2].append(pair)
                stack[-1][1].extend(inner)
            else:
                top.append(pair)
            continue
        for _, inner, _ in stack:
            inner.append(part)
    return top


def _flatten(pairs: Sequence[_Pair]) -> list[_Pair]:
    out = []
    for pair in pairs:
        out.append(pair)
        out.extend(_flatten(pair.children))
    return out


def _rebuild(
    parts: Parts, sentence: str, pairs: list[_Pair], translations: dict[int, str]
) -> Parts | None:
    atoms = [p.id for p in parts if isinstance(p, Tag) and p.kind == "atom"]
    found = [int(m.group(1)) for m in _PLACEHOLDER.finditer(sentence)]
    if sorted(found) != sorted(atoms):
        return None
    words = [(m.start(), m.end()) for m in _WORD.finditer(sentence)]
    insertions: list[tuple[int, int, Tag]] = []  # (offset, order, tag)
    if not _place(pairs, sentence, words, 0, len(words), translations, insertions):
        return None
    out: list[Part] = []
    position = 0
    for offset, _, tag in sorted(insertions, key=lambda i: (i[0], i[1])):
        out.append(sentence[position:offset])
        out.append(tag)
        position = offset
    out.append(sentence[position:])
    return _with_atoms(out)


def _place(
    pairs: Sequence[_Pair],
    sentence: str,
    words: list[tuple[int, int]],
    lo: int,
    hi: int,
    translations: dict[int, str],
    insertions: list[tuple[int, int, Tag]],
) -> bool:
    taken: list[tuple[int, int]] = []
    for pair in pairs:
        window = _best_window(sentence, words, lo, hi, translations[pair.id])
        if window is None or any(a < window[1] and window[0] < b for a, b in taken):
            return False
        taken.append(window)
        first, last = window
        start, end = _trim(sentence, words[first][0], words[last - 1][1])
        # Opening tags sort after closing ones at the same offset, outer before inner.
        depth = len(insertions)
        insertions.append((start, 1 + depth, Tag(pair.id, "open")))
        insertions.append((end, -1 - depth, Tag(pair.id, "close")))
        if not _place(pair.children, sentence, words, first, last, translations, insertions):
            return False
    return True


def _best_window(
    sentence: str, words: list[tuple[int, int]], lo: int, hi: int, target: str
) -> tuple[int, int] | None:
    wanted = _WORD.findall(target)
    if not wanted or hi <= lo:
        return None
    goal = _normal(" ".join(wanted))
    best: tuple[float, int, int] | None = None
    for size in range(max(1, len(wanted) - 2), len(wanted) + 3):
        for first in range(lo, hi - size + 1):
            text = _normal(sentence[words[first][0] : words[first + size - 1][1]])
            score = SequenceMatcher(None, text, goal, autojunk=False).ratio()
            if text.rsplit(" ", 1)[-1] in _DANGLING and not goal.endswith(text.rsplit(" ", 1)[-1]):
                score -= _DANGLING_PENALTY
            if best is None or score > best[0]:
                best = (score, first, first + size)
    if best is None or best[0] < MIN_SIMILARITY:
        return None
    return best[1], best[2]


def _normal(text: str) -> str:
    return text.strip(_EDGE_PUNCTUATION + " ").lower()


def _trim(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Leave sentence punctuation at the edges of a window outside the pair."""
    while start < end and sentence[start] in _EDGE_PUNCTUATION:
        start += 1
    while end > start and sentence[end - 1] in _EDGE_PUNCTUATION:
        end -= 1
    return start, end


def _with_atoms(parts: list[Part]) -> Parts:
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Tag):
            out.append(part)
            continue
        position = 0
        for match in _PLACEHOLDER.finditer(part):
            out.append(part[position : match.start()])
            out.append(Tag(int(match.group(1)), "atom"))
            position = match.end()
        out.append(part[position:])
    return tuple(p for p in out if p != "")
