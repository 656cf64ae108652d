"""Text that no engine may see or change: URLs, e-mail addresses, @mentions, emoji, placeholders,
and the marks that set the direction of right-to-left text.

(Code spans and blocks are found by the Markdown parser, not here.)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

_EMOJI_CHAR = (
    "\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\u2190-\u21ff"
    "\u3030\u303d\u3297\u3299\u00a9\u00ae\u203c\u2049\u2122\u2139\u24c2\u25aa-\u25fe"
    "\u2934\u2935"
)
# One emoji: a pictograph or flag, with its variation selector, skin tone and keycap, and
# any zero-width-joined sequence (👩‍💻, 👍🏽, 🇵🇹).
_EMOJI = (
    rf"(?:[\U0001f1e6-\U0001f1ff]{{2}}|[{_EMOJI_CHAR}])[\ufe0f\U0001f3fb-\U0001f3ff\u20e3]*"
    rf"(?:\u200d[{_EMOJI_CHAR}][\ufe0f\U0001f3fb-\U0001f3ff]*)*[\U000e0020-\U000e007f]*"
)
_KEYCAP = r"[0-9#*]\ufe0f?\u20e3"
_URL = r"(?:(?:https?|ftp)://|www\.)[^\s<>\"'`]+"
# An address starts where its run of name characters starts: tried from every character of a
# long word (``"a" * 32000``), it would rescan the rest of the word each time (quadratic).
_EMAIL = r"(?<![\w.+-])[\w.+-]++@[\w-]+(?:\.[\w-]+)+"
_MENTION = r"(?<![\w@.])@\w(?:[\w.-]*\w)?"
_PLACEHOLDER = (
    r"\{\{[^{}\n]{1,80}\}\}"  # {{name}}
    r"|\$\{[^{}\n]{1,80}\}"  # ${name}
    r"|\{[\w.:-]{0,40}\}"  # {0} {name} {}
    r"|%(?:\(\w+\))?(?:\d+\$)?[-+0#]?\d*(?:\.\d+)?[sdifuxXcr]"  # %s %d %(x)s %1$s
    r"|(?<![\w:]):(?=[0-9_+-]*[a-z])[a-z0-9_+-]++:(?![\w:])"  # :smile:
    r"|\[[A-Z][A-Z_]{1,30}_\d{1,4}\]"  # [EMAIL_1]: personal data kept from the engines
)
# Direction marks and embeddings (LRM, RLM, ALM, LRE…PDF, LRI…PDI): in Arabic or Hebrew
# text they keep a number, code or name written left to right in its place; engines drop
# them, so they are kept where they were, as any protected text is.
_BIDI = r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+"
PROTECTED = re.compile(
    rf"(?P<url>{_URL})|(?P<email>{_EMAIL})|(?P<mention>{_MENTION})"
    rf"|(?P<placeholder>{_PLACEHOLDER})|(?P<emoji>{_KEYCAP}|{_EMOJI})|(?P<bidi>{_BIDI})"
)
# A URL usually does not end with the punctuation of the sentence around it.
_URL_TRAILER = frozenset(".,;:!?*_~")


def protected_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each protected span of ``text``, in order."""
    for match in PROTECTED.finditer(text):
        start, end = match.span()
        if match.lastgroup == "url":
            end = start + _url_length(match.group())
        yield start, end


def protected_counts(text: str) -> Counter[str]:
    """How often each protected span occurs: equal before and after translation."""
    return Counter(text[s:e] for s, e in protected_spans(text))


def _url_length(url: str) -> int:
    """How much of ``url`` is the URL: not the punctuation after it, nor a closing parenthesis
    it did not open (see https://example.com/a_(b)). One pass from the end: a URL of any length."""
    unmatched = url.count(")") - url.count("(")
    end = len(url)
    while end:
        if url[end - 1] in _URL_TRAILER:
            end -= 1
        elif url[end - 1] == ")" and unmatched > 0:
            end -= 1
            unmatched -= 1
        else:
            break
    return end
