"""Who is to be called, and from where: as the messages put it.

An agent writes "call us" for the company, and a summary's "call Lena if the issue persists"
makes it the agent in person: when a speaker only ever wrote "call us" ("email us", "contact
us"), never "call me", the one to call is "the company". And "Tony calls the desk at the
airport" puts the desk at the airport when Tony wrote "I'm phoning from the airport": the
caller's place is "from" it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from threadwise.superpowers.summarize.ledger_check import Clause, Verdict
from threadwise.text.transcript import Speaker

_CONTACT_VERBS = r"call|phone|ring|contact|email|e-mail|message|text|reach"
_US = re.compile(rf"\b(?:{_CONTACT_VERBS})\s+us\b")
_ME = re.compile(rf"\b(?:{_CONTACT_VERBS})\s+me\b")
# "calls the reservation desk at the airport": the place after the one called.
_CALLS_AT = re.compile(
    r"^\s+(?:calls|phones|rings)\s+(?P<called>.+?)\s+(?P<at>at)\s+(?:the|a|an)\s+(?P<place>[a-z]+)\b"
)


class ContactCheck:
    """Checks whom a sentence says to contact, and where a caller called from; ``names`` are
    the prompt names."""

    def __init__(self, read: Mapping[Speaker, str], names: dict[Speaker, str]) -> None:
        """``read``: each speaker's messages in English, as ``check_draft`` gathers them."""
        self.names = names
        self._said = {
            speaker: text.lower().replace("\u2019", "'") for speaker, text in read.items()
        }

    def check(self, sentence: str, clauses: list[Clause]) -> Verdict:
        verdict = Verdict(sentence)
        text = sentence
        for clause in reversed(clauses):
            found = _CALLS_AT.match(text[clause.name_end : clause.end])
            if found is None:
                continue
            said = self._said.get(clause.subject, "")
            place = re.escape(found.group("place"))
            if re.search(
                rf"\bfrom (?:the |a |an )?(?:\w+ )?{place}\b|\bi'm at the {place}\b", said
            ):
                verdict.changes.append(f"called from the {found.group('place')}")
                at = clause.name_end + found.start("at")
                text = f"{text[:at]}from{text[at + 2 :]}"
        for speaker, name in self.names.items():
            said = self._said.get(speaker, "")
            if not _US.search(said) or _ME.search(said):
                continue
            pattern = rf"\b((?:{_CONTACT_VERBS})s?)\s+{re.escape(name)}(?![\w#'])"
            if re.search(pattern, text):
                verdict.changes.append(f"contact: {name} wrote 'us', the company")
                text = re.sub(pattern, r"\1 the company", text)
        verdict.text = text
        return verdict
