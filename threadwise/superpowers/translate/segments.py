"""A group's messages through one engine, segment by segment, their markup checked.

All the group's segments go to the engine at once (one prompt for the model). A segment
whose tags did not survive, or whose Markdown came out different, is translated again split
at its markup; a Markdown message whose structure still differs is returned as written
rather than broken. Whatever the engine, a loop it fell into is cut (``text.repetition``),
and a message it gave back as written is reported as untranslated (``engine: "none"``).
HTML, XML and plain text need only the tags checked: their markup is the tags'
(``text.html_segments``), or there is none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise

from threadwise.deadlines import Deadline
from threadwise.superpowers.translate.backends import Backend
from threadwise.superpowers.translate.job import PLAIN, Wording
from threadwise.superpowers.translate.llm import StandIn
from threadwise.superpowers.translate.routing import NO_ENGINE
from threadwise.text.escaping import encoder, escaper
from threadwise.text.markdown_segments import is_plain
from threadwise.text.markdown_structure import inline_problems, structure_problems
from threadwise.text.repetition import cut_loops
from threadwise.text.segmented import Segment, SegmentedMessage
from threadwise.text.tagged import Parts, Tag, text_of

log = logging.getLogger(__name__)

UNCHANGED = NO_ENGINE
# An engine's note on a translation the request asked in a register it cannot write.
FORMALITY_NOT_APPLIED = " (formality not applied)"
# A message the fast engine translated because the model's answer was no translation of it
# (a message that told it to do something else, obeyed: ``llm``).
STOOD_IN = " (fast fallback: the model's answer was not a translation)"

SegmentTranslator = Callable[[Sequence[Parts]], list[Parts | None]]


@dataclass(frozen=True)
class Translated:
    text: str
    engine: str


def translate_segmented(
    backend: Backend,
    messages: Sequence[SegmentedMessage],
    deadline: Deadline | None = None,
    wording: Wording = PLAIN,
) -> list[Translated]:
    """Each message translated by ``backend``, its Markdown as written; in ``wording``'s
    register, which the model is told and a machine engine's lines are rewritten into."""

    def translate(parts: Sequence[Parts]) -> list[Parts | None]:
        return backend.translate(parts, deadline, wording)

    name = backend.name
    # A machine engine cannot be told the register: its lines are rewritten into it, and
    # a message still in the other one says so.
    keeper = backend.keeper(wording.formality)
    segments = [s for m in messages for s in m.segments]
    first = translate([s.parts for s in segments])
    bounds = pairwise(accumulate((len(m.segments) for m in messages), initial=0))
    fast_lines = [any(isinstance(p, StandIn) for p in first[a:b]) for a, b in bounds]
    rendered = iter(
        _checked(segment, parts, translate) for segment, parts in zip(segments, first, strict=True)
    )
    results = []
    for message, stood_in_for_the_model in zip(messages, fast_lines, strict=True):
        text = cut_loops(message.render([next(rendered) for _ in message.segments]), message.text)
        if text.strip() == message.text.strip():
            # Given back as written (a pass-through, or nothing to translate): said so, not
            # reported as the engine's translation.
            results.append(Translated(message.text, UNCHANGED))
            continue
        problems = _structure_problems(message, text)
        if problems:
            # The segments were fine alone but not together: split every one of them.
            log.info("translation changed the structure (%s); splitting", problems[0])
            text = message.render([_split(s, translate) for s in message.segments])
            if _structure_problems(message, text):
                log.warning("structure not kept even split; message returned as written")
                results.append(Translated(message.text, UNCHANGED))
                continue
        if keeper is not None and keeper.misaddressed(message.text, text):
            results.append(Translated(text, name + FORMALITY_NOT_APPLIED))
            continue
        if stood_in_for_the_model:
            # The model's answer was no translation of a line: the engine that checked it
            # (the draft's, or the direction's fast one) stands in.
            results.append(Translated(text, (backend.stand_in or name) + STOOD_IN))
            continue
        results.append(Translated(text, name))
    return results


def _structure_problems(message: SegmentedMessage, text: str) -> list[str]:
    """How a translated Markdown message's structure differs from its source's (other
    formats' structure is copied, never translated)."""
    if message.text_format != "markdown":
        return []
    if is_plain(message.text) and is_plain(text):  # one paragraph of words each
        return []
    return structure_problems(message.text, text)


def _checked(segment: Segment, parts: Parts | None, translate: SegmentTranslator) -> str:
    if parts is not None:
        text = segment.render(parts)
        if segment.text_format != "markdown":
            return text  # its tags, all its markup, were checked (``parse_tags``)
        # A segment of words alone, translated into words alone, has nothing to check.
        unmarked = not segment.markup and is_plain(text)
        if unmarked or not inline_problems(segment.source(), text):
            return text
    return _split(segment, translate)


def _split(segment: Segment, translate: SegmentTranslator) -> str:
    """The safer segmentation: each run of text between tags translated on its own."""
    runs = segment.runs()
    translated = translate([(text.strip(),) for _, text in runs]) if runs else []
    # HTML's words are decoded for the engines: written back encoded, translated or not.
    encode = encoder(segment.text_format) or str
    escape = escaper(segment.text_format)
    pieces = [segment.markup[p] if isinstance(p, Tag) else encode(p) for p in segment.parts]
    for (index, original), result in zip(runs, translated, strict=True):
        words = text_of(result).strip() if result else ""
        if words:
            # Words out of context may read as Markdown ("1. …", "*"): escaped.
            lead = original[: len(original) - len(original.lstrip())]
            trail = original[len(original.rstrip()) :]
            pieces[index] = f"{encode(lead)}{escape(words)}{encode(trail)}"
    text = "".join(pieces)
    if segment.text_format == "markdown" and inline_problems(segment.source(), text):
        return segment.source()
    return text
