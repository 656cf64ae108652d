"""Keeping a translation in the register a request asks for (``request.settings.formality``).

A line in the other register (the model's, or a machine engine's, which cannot be told) is
rewritten word by word where the language has the dictionaries for it
(``text.readdressing``); the model's is otherwise asked again. Either way the version
closer to the register is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from threadwise.protocol import Formality
from threadwise.text.formality import (
    NO_INFORMAL_FORM,
    RegisterCheck,
    addresses_reader,
    applies,
)
from threadwise.text.readdressing import Readdresser
from threadwise.text.tagged import Parts, text_of


@dataclass(frozen=True)
class Registers:
    """The check and, where there is one, the rewriter."""

    check: RegisterCheck = field(default_factory=RegisterCheck)
    readdresser: Readdresser | None = None

    def rewrites(self, language: str, formality: Formality) -> bool:
        """Whether a line into ``language`` can be rewritten into ``formality``'s register."""
        return self.readdresser is not None and self.readdresser.rewrites(language, formality)

    def keeper(
        self, source: str, target: str, region: str | None, formality: Formality
    ) -> RegisterKeeper | None:
        """What keeps lines from ``source`` in ``formality``'s register; None when the
        request asks for none, or the target has only one."""
        if not applies(formality, target):
            return None
        return RegisterKeeper(self, source, target, region, formality)


@dataclass(frozen=True)
class RegisterKeeper:
    registers: Registers
    source: str
    target: str
    region: str | None
    formality: Formality

    def problems(self, segment: Parts, translated: Parts) -> int:
        """How far ``translated`` (of ``segment``) is from the register: two for each word
        of the other one, one for an informal line to the reader that shows no informal word
        (a request, "Retourne l'objet", may be either: the words alone cannot tell)."""
        speaks = addresses_reader(text_of(segment), self.source)
        check = self.registers.check
        found = check.problems(
            text_of(translated), self.target, self.region, self.formality, speaks
        )
        return sum(1 if word == NO_INFORMAL_FORM else 2 for word in found)

    def misaddressed(self, source: str, translated: str) -> list[str]:
        """The words of the other register in ``translated`` (a whole message)."""
        speaks = addresses_reader(source, self.source)
        check = self.registers.check
        found = check.problems(translated, self.target, self.region, self.formality, speaks)
        return [word for word in found if word != NO_INFORMAL_FORM]

    def kept(self, segment: Parts, translated: Parts) -> tuple[Parts, int]:
        """``translated``, rewritten into the register unless that leaves more problems, and
        how many are left."""
        count = self.problems(segment, translated)
        readdresser = self.registers.readdresser
        if not count or readdresser is None:
            return translated, count
        rewritten = tuple(
            readdresser.rewrite(p, self.target, self.region, self.formality)
            if isinstance(p, str)
            else p
            for p in translated
        )
        left = self.problems(segment, rewritten)
        # As close, but rewritten: a request the words cannot tell from a statement
        # ("reinicia": restart!, or it restarts) reads as the rules took it.
        return (rewritten, left) if left <= count else (translated, count)
