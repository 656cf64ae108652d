"""The engines a group of messages can go to, each bound to one direction: a machine
translator (Apertium, Bergamot) or the language model (alone, or post-editing a machine
translator's draft). Routing resolves a group to one of these once (``pipeline``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from threadwise.deadlines import Deadline
from threadwise.engines.machine import MachineTranslator
from threadwise.protocol import Formality
from threadwise.superpowers.translate.job import Wording
from threadwise.superpowers.translate.llm import LlmTranslator, Reference
from threadwise.superpowers.translate.registers import RegisterKeeper, Registers
from threadwise.superpowers.translate.routing import LLM
from threadwise.text.languages import LanguageTag
from threadwise.text.tagged import Parts


class Backend(Protocol):
    """An engine for one direction, as a group's route resolves to."""

    @property
    def kind(self) -> str:
        """The engine as the routing table names it: ``apertium``, ``llm+bergamot``."""
        ...

    @property
    def name(self) -> str:
        """The engine as each result names it: ``apertium:eng-spa``."""
        ...

    @property
    def source(self) -> str: ...

    @property
    def target(self) -> LanguageTag: ...

    @property
    def uses_model(self) -> bool:
        """Whether the language model writes (on its queue, told the terms and register)."""
        ...

    @property
    def stand_in(self) -> str | None:
        """The engine whose line stands in for one the model did not translate, if any."""
        ...

    def keeper(self, formality: Formality) -> RegisterKeeper | None:
        """What finds a whole message still in the other register: a machine engine's, which
        cannot be told the register; None for the model, which is."""
        ...

    def translate(
        self, segments: Sequence[Parts], deadline: Deadline | None, wording: Wording
    ) -> list[Parts | None]:
        """Each segment translated; None where its tags could not be kept."""
        ...


@dataclass(frozen=True)
class MachineBackend:
    """A machine translation engine; a register is kept by rewriting its lines."""

    kind: str
    engine: MachineTranslator
    source: str
    target: LanguageTag
    registers: Registers

    @property
    def name(self) -> str:
        return self.engine.name_for(self.source, self.target.language, self.target.region)

    @property
    def uses_model(self) -> bool:
        return False

    @property
    def stand_in(self) -> str | None:
        return None

    def keeper(self, formality: Formality) -> RegisterKeeper | None:
        target = self.target
        return self.registers.keeper(self.source, target.language, target.region, formality)

    def translate(
        self, segments: Sequence[Parts], deadline: Deadline | None, wording: Wording
    ) -> list[Parts | None]:
        language, region = self.target.language, self.target.region
        translated = self.engine.translate(segments, self.source, language, region, deadline)
        keeper = self.keeper(wording.formality)
        if keeper is None:
            return translated
        return [
            keeper.kept(segment, parts)[0] if parts is not None else None
            for segment, parts in zip(segments, translated, strict=True)
        ]


@dataclass(frozen=True)
class ModelBackend:
    """The language model: told the terms and the register. With a ``draft`` engine it
    post-edits that engine's lines; else the ``reference`` engine, if any, checks that the
    model's lines translate theirs (``llm``): one told to do otherwise may do it."""

    llm: LlmTranslator
    source: str
    target: LanguageTag
    draft: MachineBackend | None = None
    reference: MachineBackend | None = None

    @property
    def kind(self) -> str:
        return LLM if self.draft is None else f"{LLM}+{self.draft.kind}"

    @property
    def name(self) -> str:
        model = self.llm.name_for(self.source, self.target.language)
        return model if self.draft is None else f"{model} post-editing {self.draft.name}"

    @property
    def uses_model(self) -> bool:
        return True

    @property
    def stand_in(self) -> str | None:
        checker = self.draft or self.reference
        return checker.name if checker is not None else None

    def keeper(self, formality: Formality) -> RegisterKeeper | None:
        return None

    def translate(
        self, segments: Sequence[Parts], deadline: Deadline | None, wording: Wording
    ) -> list[Parts | None]:
        source, language, region = self.source, self.target.language, self.target.region
        formality = wording.formality
        told = [(t.source, t.target) for t in wording.told]
        context = wording.context
        if self.draft is not None:
            engine = self.draft.engine
            drafts = engine.translate(segments, source, language, region, deadline)
            return self.llm.post_edit(
                segments, drafts, source, language, region, deadline, formality, told, context
            )
        checker, register = self.reference, Wording(formality=formality)
        reference: Reference | None = (
            None if checker is None else lambda parts: checker.translate(parts, deadline, register)
        )
        return self.llm.translate(
            segments, source, language, region, deadline, formality, told, reference, context
        )
