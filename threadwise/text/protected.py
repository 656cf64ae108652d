"""Text that no engine may see or change: URLs, e-mail addresses, @mentions, emoji, placeholders.

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
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_MENTION = r"(?<![\w@.])@\w(?:[\w.-]*\w)?"
_PLACEHOLDER = (
    r"\{\{[^{}\n]{1,80}\}\}"  # {{name}}
    r"|\$\{[^{}\n]{1,80}\}"  # ${name}
    r"|\{[\w.:-]{0,40}\}"  # {0} {name} {}
    r"|%(?:\(\w+\))?(?:\d+\$)?[-+0#]?\d*(?:\.\d+)?[sdifuxXcr]"  # %s %d %(x)s %1$s
    r"|(?<![\w:]):[a-z0-9_+-]*[a-z][a-z0-9_+-]*:(?![\w:])"  # :smile:
    r"|\[[A-Z][A-Z_]{1,30}_\d{1,4}\]"  # [EMAIL_1]: personal data kept from the engines
)
PROTECTED = re.compile(
    rf"(?P<url>{_URL})|(?P<email>{_EMAIL})|(?P<mention>{_MENTION})"
    rf"|(?P<placeholder>{_PLACEHOLDER})|(?P<emoji>{_KEYCAP}|{_EMOJI})"
)
# A URL usually does not end with the punctuation of the sentence around it.
_URL_TRAILER = re.compile(r"[.,;:!?*_~]+$")


def protected_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each protected span of ``text``, in order."""
    for match in PROTECTED.finditer(text):
        start, end = match.span()
        if match.lastgroup == "url":
            end = start + len(_trim_url(match.group()))
        yield start, end


def protected_counts(text: str) -> Counter[str]:
    """How often each protected span occurs: equal before and after translation."""
    return Counter(text[s:e] for s, e in protected_spans(text))


def _trim_url(url: str) -> str:
    url = _URL_TRAILER.sub("", url)
    # A closing parenthesis belongs to the URL only if it opened one: (see https://x.org/a_(b))
    while url.endswith(")") and url.count(")") > url.count("("):
        url = _URL_TRAILER.sub("", url[:-1])
    return url
