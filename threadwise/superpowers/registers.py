"""Keeping a translation in the register a request asks for (``request.settings.formality``).

A line the model wrote in the other register is rewritten word by word where the language
has the dictionaries for it (``text.readdressing``), and is otherwise left for the model to
be asked again; either way the version with fewer words of the other register is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from threadwise.protocol import Formality
from threadwise.text.formality import (
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
        """How many words of ``translated`` (of ``segment``) are in the other register."""
        speaks = addresses_reader(text_of(segment), self.source)
        check = self.registers.check
        found = check.problems(
            text_of(translated), self.target, self.region, self.formality, speaks
        )
        return len(found)

    def kept(self, segment: Parts, translated: Parts) -> tuple[Parts, int]:
        """``translated``, rewritten into the register if that leaves fewer problems, and
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
        return (rewritten, left) if left < count else (translated, count)
