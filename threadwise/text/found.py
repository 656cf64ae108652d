"""A find in a text: personal data of some kind, where it is and what it says."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Found:
    kind: str
    start: int
    end: int
    value: str
