"""The summary aspects an organization defines itself (``threadwise aspects``): what to
write, one worked example, and the limits they are checked against before they are stored."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from threadwise.protocol import BUILT_IN_ASPECTS

MAX_INSTRUCTION = 500
MAX_EXAMPLE_CONVERSATION = 2000
MAX_EXAMPLE_ANSWER = 500
_ASPECT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")


@dataclass(frozen=True)
class CustomAspect:
    """An aspect an organization defines: what to write, and one worked example."""

    name: str
    instruction: str
    example_conversation: str
    example_answer: str


def checked_aspect(aspect: CustomAspect) -> CustomAspect:
    """``aspect`` with its fields stripped, or ``ValueError`` saying what to fix."""
    name = aspect.name.strip()
    if not _ASPECT_NAME.fullmatch(name):
        raise ValueError(
            "A custom aspect's name is a letter followed by up to 39 letters, digits, '_' or "
            f"'-', got {aspect.name!r}."
        )
    if name.lower() in {built_in.lower() for built_in in BUILT_IN_ASPECTS}:
        raise ValueError(
            f"{name!r} is a built-in aspect ({', '.join(BUILT_IN_ASPECTS)}): give the custom "
            "one another name."
        )
    fields = {
        "instruction": (aspect.instruction.strip(), MAX_INSTRUCTION),
        "example conversation": (aspect.example_conversation.strip(), MAX_EXAMPLE_CONVERSATION),
        "example answer": (aspect.example_answer.strip(), MAX_EXAMPLE_ANSWER),
    }
    for label, (text, limit) in fields.items():
        if not text:
            raise ValueError(f"A custom aspect's {label} must not be empty.")
        if len(text) > limit:
            raise ValueError(
                f"A custom aspect's {label} has at most {limit} characters, got {len(text)}."
            )
    return replace(
        aspect,
        name=name,
        instruction=fields["instruction"][0],
        example_conversation=fields["example conversation"][0],
        example_answer=fields["example answer"][0],
    )
