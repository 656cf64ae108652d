"""No sentence may call two people by one name.

"Tony and Tony celebrate", "#Person1# is unhappy with #Person1#", "Tony thanks Tony": one
speaker named twice where two different people must be meant. Whoever wrote it, the model or
a check that swapped one name of a pair, the reader cannot tell who did what. ``apart`` keeps
such a sentence from the caller: a check's change that made it is undone; a draft sentence
that says it is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from threadwise.superpowers.summarize.cast import Cast

_TITLE = r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)"
_TITLES = frozenset(["Mr", "Mrs", "Ms", "Miss", "Dr", "Prof", "Professor"])
# Between two mentions of one person, what makes them two people.
_JOINED = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|nor|&)\s+")  # "X and X"
_ACTED_ON = re.compile(r"\s+(?:\w+ly\s+)?[a-z]+\s+")  # "X thanks X"
# "X is unhappy with X", within one clause: no comma between ("Amy and Rick go, with Rick
# holding her hand" names two people).
_WITH = re.compile(r"\s[^.,;:!?]{0,40}?\b(?:with|to|from|against|at)\s+")


def apart(draft: str, checked: str, cast: Cast) -> str | None:
    """``checked``, a draft sentence as the checks left it, when it names no speaker twice
    where two people are meant; else the draft sentence if only the checks did; else None."""
    if not named_twice(checked, cast):
        return checked
    if checked != draft and not named_twice(draft, cast):
        return draft
    return None


def named_twice(sentence: str, cast: Cast) -> str | None:
    """The name ``sentence`` (speakers by their prompt names) gives two people, as written in
    the prompt or as written back for the caller."""
    names = list(cast.names.values())
    written = [cast.write_back(name) for name in names]
    return _twice(sentence, names) or _twice(cast.write_back(sentence), written)


def _twice(sentence: str, names: Iterable[str]) -> str | None:
    owner: dict[str, set[int]] = {}
    for number, name in enumerate(names):
        for form in _forms(name):
            owner.setdefault(form.casefold(), set()).add(number)
    # A form two speakers share ("Mendoza") tells no one apart.
    forms = [f for f, who in owner.items() if len(who) == 1]
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    mention = re.compile(rf"(?<![\w#]){_TITLE}?(?:{alternatives})(?![\w#])", re.IGNORECASE)
    found = [m for m in mention.finditer(sentence) if _first_letter_fits(m.group(0))]
    for first, second in pairwise(found):
        who = owner[_bare(first.group(0))]
        if who != owner[_bare(second.group(0))]:
            continue
        if sentence[first.end() :].startswith("'") or sentence[second.end() :].startswith("'"):
            continue  # "Tony's order", "Tony reads Tony's note": one person's things
        if re.match(r"\s+\w+ing\b", sentence[second.end() :]):
            continue  # "…, with Rick holding Amy's hand": a clause of its own
        between = sentence[first.end() : second.start()]
        if any(p.fullmatch(between) for p in (_JOINED, _ACTED_ON, _WITH)):
            return second.group(0)
    return None


def _forms(name: str) -> set[str]:
    """How a summary may call ``name``: whole, and for a person's name of several words,
    its first and last word ("Tony", "Chan", "Mr. Chan")."""
    forms = {name}
    words = [w for w in name.split() if w.rstrip(".") not in _TITLES]
    if len(name.split()) > 1 and words and all(w[:1].isupper() for w in words):
        forms |= {words[0], words[-1]}
    return forms


def _bare(mention: str) -> str:
    return re.sub(rf"^{_TITLE}", "", mention).casefold()


def _first_letter_fits(mention: str) -> bool:
    """Names keep their capital ("Tony", not "tony"); "the customer" may open a sentence."""
    return mention[:1].isupper() or mention[:1] in "#" or mention.lower().startswith("the ")
