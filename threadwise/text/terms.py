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

from threadwise.text.protected import protected_spans


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
    skipped = [m.span() for m in _CODE.finditer(text)] + list(protected_spans(text))
    by_term = {_key(t): t for t in terms}
    counts: Counter[Term] = Counter()
    targets: dict[str, str] = {}
    numbers: dict[str, str] = {}
    parts: list[str] = []
    position = 0
    for match in pattern.finditer(text):
        if any(s < match.end() and match.start() < e for s, e in skipped):
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


@functools.lru_cache(maxsize=256)
def _pattern(terms: tuple[Term, ...]) -> re.Pattern[str]:
    """One pattern for all terms, the longest first, each a whole word or words."""
    alternatives = []
    for term in sorted(terms, key=lambda t: len(t.source), reverse=True):
        escaped = re.escape(term.source.strip())
        alternatives.append(escaped if term.case_sensitive else f"(?i:{escaped})")
    return re.compile(rf"(?<!\w)(?:{'|'.join(alternatives)})(?!\w)")


def _key(term: Term) -> str:
    return term.source.strip() if term.case_sensitive else term.source.strip().casefold()
