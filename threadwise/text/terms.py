"""Glossaries and do-not-translate terms: what a translation must say for a term.

A term of the source text is replaced by a placeholder (``[TERM_1]``) before any engine sees
the text; placeholders come back byte for byte from every engine (they are protected spans),
and each is then replaced by the term's translation: the glossary's target, or the term
itself when it must not be translated.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from threadwise.text.protected import protected_spans
from threadwise.text.scripts import script_of
from threadwise.text.spans import DisjointSpans


@dataclass(frozen=True)
class Term:
    """A source term and what it must become (itself: not translated)."""

    source: str
    target: str
    case_sensitive: bool = False


@dataclass(frozen=True)
class Glossary:
    """An organization's terms for one language pair."""

    glossary_id: str
    organization: str
    name: str
    source_language: str  # a primary language code: "en"
    target_language: str
    entries: tuple[Term, ...]
    default: bool = False  # the organization's default for its pair
    # When it was created (the store's; DeepL's glossaries report it): not part of its value.
    created_at: datetime | None = field(default=None, compare=False)


# Where a term is left alone: code (never translated), and protected text (URLs, e-mail
# addresses, placeholders).
_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]+`", re.DOTALL)


@dataclass(frozen=True)
class MaskedTerms:
    """A text with its terms as placeholders, and what each placeholder becomes."""

    text: str
    targets: dict[str, str] = field(default_factory=dict)  # placeholder → its translation
    counts: tuple[tuple[Term, int], ...] = ()  # each term found, and how often

    def unmask(self, translated: str) -> str:
        """``translated`` with each placeholder replaced by its term's translation."""
        for placeholder, target in self.targets.items():
            translated = translated.replace(placeholder, target)
        return translated


def mask_terms(text: str, terms: Sequence[Term]) -> MaskedTerms:
    """``text`` with each occurrence of a term (a whole word or words; the longest term
    first) replaced by a placeholder, the same one for the same term. A term written with a
    capital where the glossary has none ("Dashboard" opening a sentence) keeps it in its
    translation. Code and protected text are left as they are."""
    if not terms:
        return MaskedTerms(text)
    pattern = _pattern(tuple(terms))
    skipped = _merged([m.span() for m in _CODE.finditer(text)] + list(protected_spans(text)))
    by_term = {_key(t): t for t in terms}
    counts: Counter[Term] = Counter()
    targets: dict[str, str] = {}
    numbers: dict[str, str] = {}
    parts: list[str] = []
    position = 0
    # Terms and skipped spans are both in order: one pass over each (a term beside each of
    # many emoji, "ok 👍 " * 6000, compared every term with every span: quadratic).
    passed = 0
    for match in pattern.finditer(text):
        while passed < len(skipped) and skipped[passed][1] <= match.start():
            passed += 1
        if passed < len(skipped) and skipped[passed][0] < match.end():
            continue
        term = by_term.get(match.group()) or by_term[match.group().casefold()]
        counts[term] += 1
        target = term.target
        if match.group()[:1].isupper() and not term.source[:1].isupper():
            target = target[:1].upper() + target[1:]
        placeholder = numbers.get(target)
        if placeholder is None:
            placeholder = f"[TERM_{len(numbers) + 1}]"
            numbers[target] = placeholder
            targets[placeholder] = target
        parts += [text[position : match.start()], placeholder]
        position = match.end()
    parts.append(text[position:])
    return MaskedTerms("".join(parts), targets, tuple(counts.items()))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` in order, those that overlap as one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


# Scripts written without spaces between words: a term in them is found inside a run of
# letters ("订单" in "我的订单号"), where a term in an alphabet must be a whole word; beside
# their letters a word in an alphabet begins or ends ("买iPhone").
UNSPACED_SCRIPTS = frozenset({"Han", "Hiragana", "Katakana", "Thai"})
_UNSPACED_LETTERS = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A letter or digit of a word that spaces end: one of an alphabet.
_SPACED_WORD = rf"[^\W{_UNSPACED_LETTERS}]"


def whole_words(phrase: str) -> str:
    """A pattern of ``phrase`` (escaped) as a whole word or words: at an edge written in an
    alphabet, not inside a longer word of an alphabet; at an edge in a script without
    spaces, anywhere."""
    phrase = phrase.strip()
    if not phrase:
        return re.escape(phrase)
    lead = "" if script_of(phrase[0]) in UNSPACED_SCRIPTS else rf"(?<!{_SPACED_WORD})"
    trail = "" if script_of(phrase[-1]) in UNSPACED_SCRIPTS else rf"(?!{_SPACED_WORD})"
    return f"{lead}{re.escape(phrase)}{trail}"


@functools.lru_cache(maxsize=256)
def _pattern(terms: tuple[Term, ...]) -> re.Pattern[str]:
    """One pattern for all terms, the longest first, each a whole word or words."""
    alternatives = []
    for term in sorted(terms, key=lambda t: len(t.source), reverse=True):
        bounded = whole_words(term.source)
        alternatives.append(bounded if term.case_sensitive else f"(?i:{bounded})")
    return re.compile("|".join(alternatives))


def _key(term: Term) -> str:
    return term.source.strip() if term.case_sensitive else term.source.strip().casefold()


_WORDS = re.compile(r"\w+(?:[-'\u2019]\w+)*")
# Words a term translated alone may gain ("as parcelas") and a note ("top-up (a)").
_ARTICLES = frozenset(
    {
        *("a", "an", "the", "o", "os", "as", "um", "uma", "uns", "umas", "el", "la", "los"),
        *("las", "un", "una", "unos", "unas", "le", "les", "l'", "des", "der", "die", "das"),
        *("den", "dem", "ein", "eine", "einen", "einem", "einer"),
    }
)
# How alike (Dice on letter trigrams) a span must be to the term's own translation, and how
# long a word they share ("de" is not enough).
NEAR_ENOUGH = 0.4
SHARED_LETTERS = 4


def near_spans(own: str, translated: str, count: int) -> list[tuple[int, int]]:
    """Where ``translated`` says what the engine translated a term alone as, when it words it
    a little differently in context ("redefinição de fábrica" for "reset de fábrica"): the
    ``count`` spans of as many words or one more most alike to it, each alike enough and
    sharing a word of some length with it; [] when there are not just ``count`` of them."""
    words = [w.casefold() for w in _WORDS.findall(re.sub(r"\([^)]*\)", " ", own))]
    while words and words[0] in _ARTICLES:
        words = words[1:]
    if not words:
        return []
    wanted = _trigrams(" ".join(words))
    tokens = list(_WORDS.finditer(translated))
    scored: list[tuple[float, int, int]] = []
    # As many words or one more, never fewer: a part of the wording replaced would leave the
    # rest of it beside the term.
    for size in (len(words), len(words) + 1):
        for first in range(len(tokens) - size + 1):
            window = [t.group().casefold() for t in tokens[first : first + size]]
            shared = {w.replace("-", "") for w in window} & {w.replace("-", "") for w in words}
            if window[0] in _ARTICLES or all(len(w) < SHARED_LETTERS for w in shared):
                continue
            grams = _trigrams(" ".join(window))
            score = 2 * len(wanted & grams) / (len(wanted) + len(grams))
            if score >= NEAR_ENOUGH:
                scored.append((score, tokens[first].start(), tokens[first + size - 1].end()))
    spans = DisjointSpans()
    chosen = [
        (start, end) for _, start, end in sorted(scored, reverse=True) if spans.take(start, end)
    ]
    return sorted(chosen) if len(chosen) == count else []


def _trigrams(text: str) -> set[str]:
    padded = f" {text.replace('-', '')} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}
