"""Sentences: split, cut to a length, kept from rambling."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from threadwise.protocol import SummaryFormat
from threadwise.text.sentences import sentence_ends, split_sentences

# A paragraph summary is cut, at a sentence end, after this many words: past it the model has
# stopped summarizing and retells the conversation line by line.
PARAGRAPH_WORDS = 60
BULLETS = 5


_LABEL = re.compile(
    r"^\W*(summary|resumen|résumé|resume|zusammenfassung|resumo|riassunto|sommario|samenvatting)"
    r"\s*:\s*",
    re.IGNORECASE,
)


def clean_translation(text: str) -> str:
    """A translation without the quotes or the "Summary:" label the model sometimes adds."""
    text = _LABEL.sub("", text.strip())
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'«»“”":
        text = text[1:-1].strip()
    return text.strip('"“”«» ') if text.count('"') == 1 else text


def concise(text: str, form: SummaryFormat, sentences: int | None = None) -> str:
    """Without repeated sentences (greedy decoding can loop), and cut where a paragraph stops
    summarizing: at the sentence end before ``PARAGRAPH_WORDS`` or after ``sentences``, or
    after ``BULLETS``."""
    if form == "structured":
        return text
    if form == "bullets":
        bullets = list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))
        return "\n".join(bullets[:BULLETS])
    kept: list[str] = []
    words = 0
    for sentence in dict.fromkeys(split_sentences(text)):
        words += len(sentence.split())
        if kept and (words > PARAGRAPH_WORDS or len(kept) == sentences):
            break
        kept.append(sentence)
    if len(kept) == 1 and words > PARAGRAPH_WORDS:
        # One run-on sentence ("A, B, C, and D"): end it at its last clause within the limit.
        head = " ".join(kept[0].split()[:PARAGRAPH_WORDS])
        cut = head.rfind(", ")
        if cut > len(head) // 2:
            kept = [head[:cut].rstrip(" ,;") + "."]
    return " ".join(kept)


def split_lines(
    lines: Sequence[str], budget: int, count_tokens: Callable[[str], int]
) -> list[list[str]]:
    """Group consecutive lines into parts of at most ``budget`` tokens (a longer line is
    split at spaces). Nothing is dropped."""
    parts: list[list[str]] = [[]]
    used = 0
    for line in lines:
        for piece in _pieces(line, budget - 1, count_tokens):
            cost = count_tokens(piece) + 1
            if parts[-1] and used + cost > budget:
                parts.append([])
                used = 0
            parts[-1].append(piece)
            used += cost
    return parts


def _pieces(line: str, budget: int, count_tokens: Callable[[str], int]) -> list[str]:
    if count_tokens(line) <= budget:
        return [line]
    pieces: list[str] = []
    current: list[str] = []
    for word in line.split(" "):
        if current and count_tokens(" ".join([*current, word])) > budget:
            pieces.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        pieces.append(" ".join(current))
    return pieces


def units(text: str, form: SummaryFormat) -> list[str]:
    """What a summary is checked and translated by: a paragraph's sentences, a list's lines."""
    if form == "paragraph":
        return split_sentences(text)
    return [line.strip() for line in text.splitlines() if line.strip()]


def joined(parts: list[str], form: SummaryFormat) -> str:
    """``units`` put back together."""
    return (" " if form == "paragraph" else "\n").join(parts)


def fit_length(text: str, max_chars: int | None) -> str:
    """Cut ``text`` to ``max_chars`` at a sentence end or line break if one fits, else at a
    word."""
    if not max_chars or len(text) <= max_chars:
        return text
    head = text[:max_chars]
    end = max([e for e in sentence_ends(text) if e <= max_chars], default=0)
    end = max(end, head.rfind("\n") + 1)
    if end > max_chars // 3:
        return head[:end].rstrip()
    return head[: max_chars - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def fit_sections(text: str, max_chars: int | None) -> str:
    """A structured summary within ``max_chars``: the longest section loses its last
    sentence until the whole fits, so that every section stays; then ``fit_length``."""
    sections = [split_sentences(section) for section in text.split("\n\n")]
    while max_chars and len("\n\n".join(" ".join(s) for s in sections)) > max_chars:
        longest = max(sections, key=lambda s: len(" ".join(s)))
        if len(longest) < 2:
            break
        longest.pop()
    return fit_length("\n\n".join(" ".join(s) for s in sections), max_chars)


def complete_sentences(text: str) -> str:
    """``text`` (cut off mid-sentence) up to the end of its last complete sentence."""
    ends = sentence_ends(text)
    end = ends[-1] if ends else -1
    return text[:end] if end > len(text) // 3 else text


def sentence_case(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
