"""A checked English sentence about the customer, told to the customer: "Priya Raman wants to
return her headphones" → "You want to return your headphones".

The ``recap`` aspect is the issue, resolution and next steps told this way: made of
sentences that passed the checks, it says nothing they do not, in the second person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Third-person verb forms after the subject, and the second person's.
_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "isn't": "aren't"}
_IRREGULAR.update({"wasn't": "weren't", "hasn't": "haven't", "doesn't": "don't"})
_NOT_VERBS = frozenset(
    ["this", "is", "was", "has", "his", "its", "as", "us", "yes", "plus", "less", "unless"]
)
_ADVERBS = frozenset(
    ["also", "still", "then", "now", "already", "only", "just", "again", "later", "first"]
)
_PRONOUNS = {"him": "you", "his": "your", "her": "your"}
_PRONOUNS.update({"himself": "yourself", "herself": "yourself", "hers": "yours"})


def to_customer(sentence: str, names: Sequence[str]) -> str:
    """``sentence`` with the customer, called by any of ``names`` (full name first), as
    "you"; when the customer is its subject, the verb and later pronouns follow."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True) if n)
    if not alternatives:
        return sentence
    subject = re.match(rf"(?:{alternatives})(?!\w)(?:'s)?", sentence, re.IGNORECASE)
    if subject is not None and subject.group(0).lower().endswith("'s"):
        sentence = "Your" + sentence[subject.end() :]
    elif subject is not None:
        # The customer is the subject: "he", "his" and "her" later are theirs (the best
        # guess), and a verb after "he" or "she" agrees with "you" too.
        parts = re.split(r"\b(he|she)\b", sentence[subject.end() :], flags=re.IGNORECASE)
        sentence = "You" + _agree(parts[0])
        for pronoun, rest in zip(parts[1::2], parts[2::2], strict=True):
            sentence += _cased("you", pronoun) + _agree(rest)
        sentence = re.sub(
            r"\b(him|his|her|himself|herself|hers)\b",
            lambda m: _cased(_PRONOUNS[m.group(1).lower()], m.group(1)),
            sentence,
            flags=re.IGNORECASE,
        )
    sentence = re.sub(rf"\b(?:{alternatives})(?:'s|\u2019s)(?!\w)", "your", sentence)
    return re.sub(rf"\b(?:{alternatives})(?!\w)", "you", sentence)


def _agree(rest: str) -> str:
    """The words after a subject that became "You", its verb (after an adverb or not) in
    the second person."""
    for number, match in enumerate(re.finditer(r"[\w']+", rest)):
        word = match.group(0)
        if number == 0 and word.lower() in _ADVERBS:
            continue
        second = _second_person(word.lower())
        return rest if second is None else rest[: match.start()] + second + rest[match.end() :]
    return rest


def _second_person(verb: str) -> str | None:
    """ "wants" → "want", "is" → "are"; None for a word that is no third-person verb."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb in _NOT_VERBS or not verb.endswith("s") or verb.endswith("ss"):
        return None
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:ch|sh|ss|x|z|o)es$", verb):
        return verb[:-2]
    return verb[:-1]


def _cased(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word
