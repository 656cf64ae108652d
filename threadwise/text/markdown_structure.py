"""Check that a translation kept the Markdown structure and protected text of its source."""

from __future__ import annotations

from collections.abc import Iterable

from markdown_it.token import Token

from threadwise.text.markdown_segments import markdown_parser
from threadwise.text.protected import protected_counts

_MD = markdown_parser()
# Block tokens whose content is itself protected (never translated).
_VERBATIM_BLOCKS = frozenset({"fence", "code_block", "html_block"})

Shape = tuple[str, ...]


def structure_problems(source: str, translated: str) -> list[str]:
    """What differs between the two messages' structure and protected text; empty if nothing."""
    problems = []
    source_tokens, translated_tokens = _MD.parse(source), _MD.parse(translated)
    before, after = _shape(source_tokens), _shape(translated_tokens)
    if before != after:
        problems.append(_first_difference(before, after))
    lost = protected_counts(_texts(source_tokens))
    gained = protected_counts(_texts(translated_tokens))
    if lost != gained:
        missing = ", ".join(repr(k) for k in (lost - gained))
        extra = ", ".join(repr(k) for k in (gained - lost))
        problems.append(f"protected text changed (missing: {missing or '-'}; new: {extra or '-'})")
    return problems


def inline_problems(source: str, translated: str) -> list[str]:
    """The same check for one block's inline content."""
    source_tokens, translated_tokens = _MD.parseInline(source), _MD.parseInline(translated)
    before, after = _shape(source_tokens), _shape(translated_tokens)
    if before != after:
        return [_first_difference(before, after)]
    if protected_counts(_texts(source_tokens)) != protected_counts(_texts(translated_tokens)):
        return ["protected text changed"]
    return []


def _shape(tokens: Iterable[Token]) -> Shape:
    out: list[str] = []
    for token in tokens:
        if token.type == "inline":
            out.extend(_shape(token.children or []))
            continue
        if token.type in ("text",):
            continue
        item = f"{token.type}:{token.tag}:{token.markup}"
        if token.type == "ordered_list_open":
            item += f":start={token.attrs.get('start', 1)}"
        elif token.type in ("link_open", "image"):
            item += f":{token.attrs.get('href', token.attrs.get('src'))}:{token.attrs.get('title')}"
        elif token.type in _VERBATIM_BLOCKS or token.type in ("code_inline", "html_inline"):
            item += f":{token.info}:{token.content}"
        elif token.type in ("th_open", "td_open"):
            item += f":{token.attrs.get('style')}"
        out.append(item)
    return tuple(out)


def _texts(tokens: Iterable[Token]) -> str:
    pieces: list[str] = []
    for token in tokens:
        if token.type == "inline":
            pieces.append(_texts(token.children or []))
        elif token.type == "text":
            pieces.append(token.content)
    return "\n".join(pieces)


def _first_difference(before: Shape, after: Shape) -> str:
    for index, (b, a) in enumerate(zip(before, after, strict=False)):
        if b != a:
            return f"structure differs at element {index}: {b[:60]!r} became {a[:60]!r}"
    return f"structure has {len(after)} elements instead of {len(before)}"
