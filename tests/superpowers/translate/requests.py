"""Requests and glossaries the translate tests share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.conftest import minimal_body
from threadwise.payload import PayloadLimits, parse_message_body
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
