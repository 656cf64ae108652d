"""What an organization's glossaries and do-not-translate terms may hold, and the checks that
say what to fix before they are stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from threadwise.text.languages import TRANSLATION_LANGUAGES
from threadwise.text.terms import Term

MAX_GLOSSARIES = 100  # an organization's
MAX_ENTRIES = 1000  # a glossary's
MAX_DO_NOT_TRANSLATE = 10_000  # an organization's
MAX_NAME = 200
MAX_TERM = 200  # a source, target or do-not-translate term


@dataclass(frozen=True)
class GlossaryFields:
    """A glossary's fields, checked and normalized."""

    name: str
    source_language: str
    target_language: str
    entries: tuple[Term, ...]
    default: bool


def checked_glossary(
    name: str,
    source_language: str,
    target_language: str,
    entries: Sequence[Term],
    default: bool,
) -> GlossaryFields:
    """The glossary's fields normalized, or ``ValueError`` saying what to fix."""
    name = _text(name, "A glossary's name", MAX_NAME)
    source = _language(source_language, "source")
    target = _language(target_language, "target")
    if source == target:
        raise ValueError(
            f"A glossary's source and target languages must differ, got {source!r} for both."
        )
    if not 1 <= len(entries) <= MAX_ENTRIES:
        raise ValueError(
            f"A glossary has 1 to {MAX_ENTRIES} entries, got {len(entries)}"
            + (": give at least one." if not entries else ": split it in several.")
        )
    checked = tuple(
        Term(
            _text(entry.source, f"Glossary entry {number}'s source", MAX_TERM),
            _text(entry.target, f"Glossary entry {number}'s target", MAX_TERM),
            entry.case_sensitive,
        )
        for number, entry in enumerate(entries, start=1)
    )
    _refuse_repeats(checked, "Glossary entries {} and {} both have the source {!r}")
    return GlossaryFields(name, source, target, checked, default)


def checked_do_not_translate(terms: Sequence[Term]) -> tuple[Term, ...]:
    if len(terms) > MAX_DO_NOT_TRANSLATE:
        raise ValueError(
            f"An organization has at most {MAX_DO_NOT_TRANSLATE} do-not-translate terms, got "
            f"{len(terms)}."
        )
    checked = []
    for number, term in enumerate(terms, start=1):
        text = _text(term.source, f"Do-not-translate term {number}", MAX_TERM)
        checked.append(Term(text, text, term.case_sensitive))
    _refuse_repeats(checked, "Do-not-translate terms {} and {} are both {!r}")
    return tuple(checked)


def _refuse_repeats(terms: Sequence[Term], clash: str) -> None:
    """``ValueError`` for two terms with the same source: the same text, or the same but for
    case where either one ignores case (it would match the other's text too)."""
    exact: dict[str, int] = {}  # case-sensitive sources
    folded: dict[str, int] = {}  # case-insensitive sources, case-folded
    folded_exact: dict[str, int] = {}  # case-sensitive sources, case-folded
    for number, term in enumerate(terms, start=1):
        key = term.source.casefold()
        if term.case_sensitive:
            earlier = exact.get(term.source, folded.get(key))
        else:
            earlier = folded.get(key, folded_exact.get(key))
        if earlier is not None:
            if terms[earlier - 1].source == term.source:
                raise ValueError(clash.format(earlier, number, term.source) + ": keep one.")
            raise ValueError(
                clash.format(earlier, number, term.source)
                + " but for case, and one ignores case (so it matches the other too): keep "
                "one, or make both case-sensitive."
            )
        if term.case_sensitive:
            exact[term.source] = number
            folded_exact.setdefault(key, number)
        else:
            folded[key] = number


def _text(value: str, what: str, limit: int) -> str:
    text = value.strip()
    if not text:
        raise ValueError(f"{what} must not be empty.")
    if len(text) > limit:
        raise ValueError(f"{what} has at most {limit} characters, got {len(text)}.")
    if len(text.splitlines()) > 1:
        raise ValueError(f"{what} must be on one line, got {text[:60]!r}.")
    return text


def _language(tag: str, which: str) -> str:
    code = primary_language(tag)
    if code not in TRANSLATION_LANGUAGES:
        raise ValueError(
            f"A glossary's {which} language is one of {', '.join(TRANSLATION_LANGUAGES)} "
            f"(a region such as 'es-ES' is accepted), got {tag[:20]!r}."
        )
    return code


def primary_language(tag: str) -> str:
    """A language tag's primary language: ``es-ES`` → ``es``."""
    return tag.strip().replace("_", "-").split("-")[0].lower()
