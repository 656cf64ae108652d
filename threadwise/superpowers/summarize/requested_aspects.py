"""What a summarize request may ask for besides a summary: the built-in aspects and those
its organization defined (``CustomAspect``), checked before the request queues."""

from __future__ import annotations

from collections.abc import Sequence

from threadwise.errors import ServiceError
from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import BUILT_IN_ASPECTS, ErrorCode


def canonical_aspects(
    asked: Sequence[str], custom: Sequence[CustomAspect], field_name: str
) -> tuple[str, ...]:
    """The aspects asked for, spelled as defined, each once, in the order asked."""
    known = {name.lower(): name for name in (*BUILT_IN_ASPECTS, *(c.name for c in custom))}
    chosen: list[str] = []
    for name in asked:
        canonical = known.get(name.strip().lower())
        if canonical is None:
            theirs = ", ".join(c.name for c in custom) or "none defined"
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                f"{field_name} names the aspect '{name[:60]}', which does not exist. Use the "
                f"built-in ones ({', '.join(BUILT_IN_ASPECTS)}) or this organization's own "
                f"({theirs}).",
            )
        if canonical not in chosen:
            chosen.append(canonical)
    return tuple(chosen)
