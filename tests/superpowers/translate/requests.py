"""Requests, glossaries and a fake machine translator the translate tests share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.conftest import minimal_body
from threadwise.deadlines import Deadline
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.text.tagged import Parts
from threadwise.text.terms import Glossary, Term


def body(contents: Sequence[str], **settings: Any) -> Any:
    data = minimal_body(settings=settings)
    data["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c", "content": c} for c in contents
    ]
    return parse_message_body(data, PayloadLimits())


GLOSSARY_ES = Glossary(
    "g-1",
    "org-1",
    "support",
    "en",
    "es",
    (Term("dashboard", "panel de control"), Term("refund", "reembolso")),
    default=True,
)
GLOSSARY_PT = Glossary("g-2", "org-1", "pt", "en", "pt", (Term("dashboard", "painel"),))
KEEP = (Term("Acme Cloud", "Acme Cloud", case_sensitive=True),)


class FakeMachineTranslator:
    """A machine translator of en->es with nothing to load; ``answer`` says what it writes."""

    kind = "fake"

    def directions(self) -> frozenset[tuple[str, str]]:
        return frozenset({("en", "es")})

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        return f"{self.kind}:{source}-{target}"

    def load(self) -> None:
        pass

    def close(self) -> None:
        pass

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
    ) -> list[Parts | None]:
        return [self.answer(parts, target) for parts in segments]

    def answer(self, parts: Parts, target: str) -> Parts | None:
        raise NotImplementedError
