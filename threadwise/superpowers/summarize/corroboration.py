"""A second draft, written another way, that every sentence of the summary must agree with.

What a small model gets wrong (who invited whom, what was only offered) it often gets wrong
differently when asked another way. The second draft is notes (issue, actions, outcome) asked
after the same conversation as the summary, decoded side by side with it; where the summary
itself comes after notes (a long conversation's parts), it is a draft under the other system
prompt with the speakers' aliases exchanged ("Alex" is now the other person), so that a
name's place in the prompt cannot decide who did what (``rotated``). A sentence of the summary
is kept when a sentence of the second draft has the same first-named speaker and shares its
content words; the others go (the first sentence stays if none is corroborated). For
``summaryMode: "verified"``; what it costs and catches: bench/FAITHFULNESS.md, round 10.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from threadwise.superpowers.summarize.cast import Cast
from threadwise.superpowers.summarize.checks import Checked
from threadwise.text.sentences import split_sentences
from threadwise.text.speech_acts import content_words
from threadwise.text.transcript import Speaker

# Two sentences about one thing share at least this many content words (fewer if the
# summary's sentence has fewer).
SHARED = 2
# Words of reporting that any summary sentence may use: no evidence of agreement.
_REPORTING = content_words(
    "ask say tell suggest mention discuss explain agree want need provide offer help decide "
    "express include talk inform share"
)
_NOTE_LABEL = re.compile(r"^\s*(?:issue|actions?|outcome|follow-up|summary)\s*:\s*", re.I)


def rotated(cast: Cast) -> dict[Speaker, str]:
    """The cast's names with the aliases moved one speaker on: the second draft's names."""
    aliased = [s for s, name in cast.names.items() if name in cast.aliases]
    names = dict(cast.names)
    if len(aliased) >= 2:
        given = [cast.names[s] for s in aliased]
        for speaker, name in zip(aliased, given[1:] + given[:1], strict=True):
            names[speaker] = name
    return names


def named_back(text: str, used: dict[Speaker, str], cast: Cast) -> str:
    """``text`` written with ``used`` names, in the cast's names again."""
    back = {name: cast.names[s] for s, name in used.items() if name != cast.names[s]}
    if not back:
        return text
    pattern = re.compile(r"(?<![\w#])(" + "|".join(map(re.escape, back)) + r")(?![\w#])")
    return pattern.sub(lambda m: back[m.group(1)], text)


def corroborate(checked: Checked, second: str, names: Iterable[str]) -> list[str]:
    """Drop from ``checked`` the sentences ``second`` (a second draft, in the same prompt
    names) does not corroborate; the sentences dropped, in their prompt names."""
    forms = _forms(names)
    own = content_words(" ".join(forms))
    others = [
        (_first_named(s, forms), content_words(s) - own - _REPORTING)
        for line in second.splitlines()
        for s in split_sentences(_NOTE_LABEL.sub("", line))
    ]
    kept, dropped = [], []
    for sentence in checked.sentences:
        text = sentence.prompt_text or sentence.text
        subject, words = _first_named(text, forms), content_words(text) - own - _REPORTING
        needed = min(SHARED, len(words))
        if any(s == subject and len(words & w) >= needed for s, w in others):
            kept.append(sentence)
        else:
            dropped.append(sentence)
    if not kept and dropped:
        kept = dropped[:1]
        dropped = dropped[1:]
    checked.sentences = kept
    return [s.prompt_text or s.text for s in dropped]


def _forms(names: Iterable[str]) -> dict[str, str]:
    """Each name, and its first word where no other name has it ("Sam" for "Sam Lee")."""
    full = set(names)
    firsts = [n.split()[0] for n in full if " " in n]
    forms = {n: n for n in full}
    forms.update({n.split()[0]: n for n in full if " " in n and firsts.count(n.split()[0]) == 1})
    return forms


def _first_named(sentence: str, forms: dict[str, str]) -> str | None:
    """The speaker ``sentence`` names first (its subject, as summaries are written)."""
    found = [
        (m.start(), -len(form), full)
        for form, full in forms.items()
        for m in [re.search(rf"(?<![\w#]){re.escape(form)}(?![\w#])", sentence)]
        if m
    ]
    return min(found)[2] if found else None
