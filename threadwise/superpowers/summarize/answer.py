"""The model's answer: notes (by heading) and a summary, and the forms a summary takes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from threadwise.protocol import SummaryFormat
from threadwise.superpowers.summarize.facts import check_facts
from threadwise.superpowers.summarize.sentences import sentence_case
from threadwise.text.sentences import split_sentences


@dataclass(frozen=True)
class Answer:
    """The model's answer: its notes (by heading) and its summary."""

    notes: str
    summary: str

    def note(self, heading: str) -> str:
        match = re.search(rf"^{heading}:[ \t]*(.*)$", self.notes, re.MULTILINE | re.IGNORECASE)
        value = match.group(1).strip() if match else ""
        return "" if value.lower().rstrip(".") in ("", "none", "n/a", "nothing") else value


def parse_answer(text: str) -> Answer:
    head, marker, tail = text.rpartition("Summary:")
    if not marker:
        return Answer(notes=text, summary="") if "Issue:" in text else Answer("", text.strip())
    return Answer(notes=head.strip(), summary=tail.strip())


def supported_notes(answer: Answer, evidence: str) -> Answer:
    """The notes without the sentences whose numbers, IDs or names the evidence lacks."""
    lines = []
    for line in answer.notes.splitlines():
        heading, colon, value = line.partition(":")
        if not colon:
            continue
        kept = [s for s in split_sentences(value) if check_facts(s, evidence).ok]
        lines.append(f"{heading}: {' '.join(kept)}")
    return Answer(notes="\n".join(lines), summary=answer.summary)


def render(answer: Answer, form: SummaryFormat) -> str:
    """The summary in the requested form; ``structured`` is rendered from the notes."""
    if form == "structured" and answer.notes:
        resolution = " ".join(sentence_case(answer.note(h)) for h in ("Actions", "Outcome")).strip()
        return (
            f"**Issue:** {sentence_case(answer.note('Issue')) or 'Not stated.'}\n\n"
            f"**Resolution:** {resolution or 'None.'}\n\n"
            f"**Next steps:** {sentence_case(answer.note('Follow-up')) or 'None.'}"
        )
    if answer.summary:
        return answer.summary
    # No summary line (the answer was cut short): say what the notes say, in sentences.
    return " ".join(
        sentence_case(answer.note(h)) for h in ("Issue", "Actions", "Outcome", "Follow-up")
    ).strip()
