"""How translated words are written back into a message of each text format."""

from __future__ import annotations

import re
from collections.abc import Callable

from threadwise.protocol import TextFormat

# Characters that could start Markdown syntax if a translation brought them in.
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_LINE_START_SPECIAL = re.compile(r"^([ \t]*)([#>+-]|\d+(?=[.)]))", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """Backslash-escape what could turn translated words into Markdown syntax."""
    text = _INLINE_SPECIAL.sub(r"\\\1", text)
    return _LINE_START_SPECIAL.sub(lambda m: f"{m.group(1)}{_escape_start(m.group(2))}", text)


def _escape_start(start: str) -> str:
    return f"{start}\\" if start[0].isdigit() else f"\\{start}"


def escape_html(text: str) -> str:
    """Words as HTML or XML character data: ``&``, ``<`` and ``>`` as references (quotes
    need none outside attributes, and attributes are never translated)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _as_written(text: str) -> str:
    return text


def encoder(text_format: TextFormat) -> Callable[[str], str] | None:
    """What words need to be written into ``text_format`` whatever they say: HTML and XML
    text is character data (an engine reads it decoded); None for Markdown, whose escaping
    is a choice (``escape_markdown``), and plain text, which has no syntax."""
    return escape_html if text_format in ("html", "xml") else None


def escaper(text_format: TextFormat) -> Callable[[str], str]:
    """What keeps words out of ``text_format``'s syntax, where words out of context might
    read as syntax ("1. …", "*")."""
    if text_format == "markdown":
        return escape_markdown
    return encoder(text_format) or _as_written
