"""The engines a group can go to: a machine translator, or the model alone or post-editing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.superpowers.translate.requests import FakeMachineTranslator
from threadwise.deadlines import Deadline
from threadwise.protocol import Formality
from threadwise.superpowers.translate.backends import MachineBackend, ModelBackend
from threadwise.superpowers.translate.job import PLAIN, Wording
from threadwise.superpowers.translate.llm import LlmTranslator, Reference
from threadwise.superpowers.translate.registers import Registers
from threadwise.text.languages import LanguageTag
from threadwise.text.tagged import Parts
from threadwise.text.terms import Term

SPANISH = LanguageTag("es-MX", "es", "MX")


class FakeMachine(FakeMachineTranslator):
    """Prefixes each segment with the direction it was asked for."""

    kind = "apertium"

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str | None]] = []

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
    ) -> list[Parts | None]:
        self.calls.append((source, target, region))
        return super().translate(segments, source, target, region, deadline)

    def answer(self, parts: Parts, target: str) -> Parts | None:
        return (f"{target}:", *parts)


class FakeModel(LlmTranslator):
    """Records how it was called instead of asking a model."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        return "model.gguf"

    def translate(self, segments: Sequence[Parts], *args: Any, **kwargs: Any) -> list[Parts | None]:
        reference: Reference | None = args[6]
        checked = None if reference is None else reference(segments)
        self.calls.append(("translate", {"args": args, "reference": checked}))
        return list(segments)

    def post_edit(
        self, segments: Sequence[Parts], drafts: Sequence[Parts | None], *args: Any, **_: Any
    ) -> list[Parts | None]:
        self.calls.append(("post_edit", {"args": args, "drafts": list(drafts)}))
        return list(segments)


def machine() -> MachineBackend:
    return MachineBackend("apertium", FakeMachine(), "en", SPANISH, Registers())


def test_a_machine_backend_translates_its_direction_and_needs_no_model() -> None:
    backend = machine()
    assert backend.name == "apertium:en-es" and not backend.uses_model
    assert backend.stand_in is None and backend.keeper("default") is None
    assert backend.translate([("Hi",)], None, PLAIN) == [("es:", "Hi")]
    assert isinstance(backend.engine, FakeMachine)
    assert backend.engine.calls == [("en", "es", "MX")]


def test_a_machine_backend_keeps_a_register_only_where_one_is_asked_for() -> None:
    formality: Formality = "formal"
    keeper = machine().keeper(formality)
    assert keeper is not None
    assert (keeper.source, keeper.target, keeper.region, keeper.formality) == (
        "en",
        "es",
        "MX",
        "formal",
    )


def test_the_model_alone_is_checked_against_its_reference_engine() -> None:
    model = FakeModel()
    backend = ModelBackend(model, "en", SPANISH, reference=machine())
    assert (backend.kind, backend.name, backend.stand_in) == ("llm", "model.gguf", "apertium:en-es")
    assert backend.uses_model and backend.keeper("formal") is None
    wording = Wording(terms=(Term("form", "formulario"),), formality="formal")
    assert backend.translate([("Hi",)], None, wording) == [("Hi",)]
    [(call, seen)] = model.calls
    assert call == "translate" and seen["reference"] == [("es:", "Hi")]
    assert seen["args"][:4] == ("en", "es", "MX", None) and seen["args"][4] == "formal"


def test_the_model_post_edits_its_draft_engines_lines() -> None:
    model = FakeModel()
    backend = ModelBackend(model, "en", SPANISH, draft=machine())
    assert backend.kind == "llm+apertium"
    assert backend.name == "model.gguf post-editing apertium:en-es"
    assert backend.stand_in == "apertium:en-es"
    backend.translate([("Hi",)], None, PLAIN)
    [(call, seen)] = model.calls
    assert call == "post_edit" and seen["drafts"] == [("es:", "Hi")]


def test_the_model_without_a_checker_has_no_stand_in() -> None:
    model = FakeModel()
    backend = ModelBackend(model, "en", SPANISH)
    assert backend.kind == "llm" and backend.stand_in is None
    backend.translate([("Hi",)], None, PLAIN)
    assert model.calls[0][1]["reference"] is None
