"""Summary aspects: the parts of a summary contact centers file separately (issue,
resolution, next steps with their owners, the customer's sentiment, a title, a recap for the
customer, the things named), each its own response item.

One pass over the conversation serves them all: the model reads the conversation once under
a notes form with a line per aspect (``prompts.SYSTEM_ASPECTS``), and each line is then
written side by side with the others, begun with its label, from that one reading. Only the
lines the requested aspects need are written; the narrative is the issue, resolution and
next steps together, and the entities are taken from the conversation itself. Each text is
checked as a summary is (actors, names, numbers), then translated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from threadwise.engines.base import ChatEngine, ChatMessage
from threadwise.engines.machine import MachineTranslator
from threadwise.errors import ServiceError
from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import ErrorCode, NextStep, SentimentShift
from threadwise.superpowers.summarize import prompts
from threadwise.superpowers.summarize.checks import CheckedSentence, check_draft
from threadwise.superpowers.summarize.entities import entities_in
from threadwise.superpowers.summarize.facts import check_facts
from threadwise.superpowers.summarize.job import SummaryJob
from threadwise.superpowers.summarize.output_language import translate_parts
from threadwise.superpowers.summarize.run import AspectText, Run
from threadwise.superpowers.summarize.second_person import to_customer
from threadwise.superpowers.summarize.sentences import complete_sentences
from threadwise.text.injection import as_data, as_line
from threadwise.text.languages import LanguageIdentifier
from threadwise.text.sentences import split_sentences
from threadwise.text.transcript import Side


@dataclass(frozen=True)
class _Line:
    label: str  # how the notes form begins the line
    max_tokens: int


# The notes form's lines, and what the model may write on each.
_LINES: dict[str, _Line] = {
    "title": _Line("Title:", 20),
    "issue": _Line("Issue:", 36),
    "resolution": _Line("Resolution:", 50),
    "status": _Line("Status:", 4),
    "next": _Line("Next steps:", 45),
    "sentiment": _Line("Sentiment:", 8),
    "products": _Line("Products:", 24),
}
# The lines each built-in aspect is made from.
_NEEDS: dict[str, tuple[str, ...]] = {
    "issue": ("issue",),
    "resolution": ("resolution",),
    "resolutionStatus": ("status",),
    "nextSteps": ("next",),
    "sentiment": ("sentiment",),
    "chapterTitle": ("title",),
    "narrative": ("issue", "resolution", "next"),
    "recap": ("issue", "resolution", "next"),
    "entities": ("products",),
}
_CUSTOM_TOKENS = 80
_TITLE_WORDS = 8
_STATUSES = ("resolved", "partially", "unresolved", "unknown")
_MOODS = ("positive", "neutral", "negative")

# Words a label aspect is written with, per summary language.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "resolved": "Resolved",
        "partially": "Partially resolved",
        "unresolved": "Unresolved",
        "unknown": "Unknown",
        "positive": "positive",
        "neutral": "neutral",
        "negative": "negative",
        "none": "None.",
    },
    "es": {
        "resolved": "Resuelto",
        "partially": "Resuelto en parte",
        "unresolved": "No resuelto",
        "unknown": "Desconocido",
        "positive": "positivo",
        "neutral": "neutral",
        "negative": "negativo",
        "none": "Ninguno.",
    },
    "fr": {
        "resolved": "Résolu",
        "partially": "Résolu en partie",
        "unresolved": "Non résolu",
        "unknown": "Inconnu",
        "positive": "positif",
        "neutral": "neutre",
        "negative": "négatif",
        "none": "Aucune.",
    },
    "de": {
        "resolved": "Gelöst",
        "partially": "Teilweise gelöst",
        "unresolved": "Ungelöst",
        "unknown": "Unbekannt",
        "positive": "positiv",
        "neutral": "neutral",
        "negative": "negativ",
        "none": "Keine.",
    },
    "pt": {
        "resolved": "Resolvido",
        "partially": "Resolvido em parte",
        "unresolved": "Não resolvido",
        "unknown": "Desconhecido",
        "positive": "positivo",
        "neutral": "neutro",
        "negative": "negativo",
        "none": "Nenhum.",
    },
    "it": {
        "resolved": "Risolto",
        "partially": "Risolto in parte",
        "unresolved": "Non risolto",
        "unknown": "Sconosciuto",
        "positive": "positivo",
        "neutral": "neutro",
        "negative": "negativo",
        "none": "Nessuno.",
    },
    "nl": {
        "resolved": "Opgelost",
        "partially": "Gedeeltelijk opgelost",
        "unresolved": "Niet opgelost",
        "unknown": "Onbekend",
        "positive": "positief",
        "neutral": "neutraal",
        "negative": "negatief",
        "none": "Geen.",
    },
}


class AspectWriter:
    """Writes the requested aspects of one summary job (see the module's docstring)."""

    def __init__(
        self,
        engine: ChatEngine,
        identifier: LanguageIdentifier,
        custom: Sequence[CustomAspect] = (),
        checks: bool = True,
        machine: MachineTranslator | None = None,
    ) -> None:
        self.engine = engine
        self.identifier = identifier
        # What translates the aspects from English where it does better than the model.
        self.machine = machine
        self.custom = {c.name: c for c in custom}
        self.checks = checks
        # Checked lines by (text, ids, fragments): the narrative and the recap are made of
        # the issue's, resolution's and steps' lines, checked once.
        self._checked_lines: dict[tuple[str, bool, bool], list[CheckedSentence]] = {}

    def write(self, run: Run, aspects: Sequence[str]) -> list[AspectText]:
        """Each of ``aspects`` once, in order. Uses the engine: call it from its queue."""
        said = self._notes(run, aspects)
        written = [self._aspect(run, name, said) for name in aspects]
        if run.job.language_code != "en":
            self._translate(run, written)
        return written

    # --- the one pass --------------------------------------------------------------------

    def _notes(self, run: Run, aspects: Sequence[str]) -> dict[str, str]:
        """The lines the aspects need (custom aspects by their own names), side by side."""
        job = run.job
        ask = prompts.DELIMITED_CONVERSATION.format(
            who_is_who=job.transcript.who_is_who(), transcript=job.transcript.text
        )
        conversation: list[ChatMessage] = [
            {"role": "system", "content": prompts.SYSTEM_ASPECTS},
            {"role": "user", "content": ask},
        ]
        keys = list(dict.fromkeys(line for a in aspects for line in _NEEDS.get(a, ())))
        chats = [conversation] * len(keys)
        starts = [_LINES[key].label for key in keys]
        budgets = [_LINES[key].max_tokens for key in keys]
        for name in aspects:
            if name in self.custom:
                custom = self.custom[name]
                label = f"{_label_of(name)}:"
                chats.append(
                    [
                        conversation[0],
                        {"role": "user", "content": ask + "\n\n" + _custom_ask(custom, label)},
                    ]
                )
                keys.append(name)
                starts.append(label)
                budgets.append(_CUSTOM_TOKENS)
        run.deadline.check()
        completions = self.engine.chat_many(
            chats,
            max_tokens=budgets,
            deadline=run.deadline,
            continue_from=starts,
            stops=[["\n"]] * len(chats),
        )
        lines: dict[str, str] = {}
        for key, start, completion in zip(keys, starts, completions, strict=True):
            run.summary.count(completion, f"aspect line {key}")
            text = completion.text.strip()
            text = text[len(start) :] if text.startswith(start) else text
            if completion.truncated and key not in ("products", "title"):
                text = complete_sentences(text)
            lines[key] = "" if _says_nothing(text) else text.strip()
        return lines

    # --- each aspect from its lines ------------------------------------------------------

    def _aspect(self, run: Run, name: str, lines: dict[str, str]) -> AspectText:
        words = _WORDS.get(run.job.language_code, _WORDS["en"])
        if name == "resolutionStatus":
            status = _first_of(lines["status"], _STATUSES, {"partial": "partially"})
            return AspectText(name, words[status], label=status)
        if name == "sentiment":
            shift = _sentiment(lines["sentiment"])
            content = f"{words[shift.start]} → {words[shift.end]}"
            return AspectText(name, content, sentiment=shift)
        if name == "entities":
            found = entities_in(run.job.transcript, lines["products"])
            return AspectText(name, "; ".join(e.text for e in found), entities=found)
        if name == "chapterTitle":
            return AspectText(name, self._title(run, lines["title"]))
        if name == "nextSteps":
            return self._next_steps(run, lines["next"])
        if name in ("narrative", "recap"):
            parts = [
                *self._checked(run, lines["issue"], ids=True),
                *self._checked(run, lines["resolution"]),
            ]
            steps = self._next_steps(run, lines["next"]).evidence
            # A step the resolution already tells is not told twice.
            evidence = parts + [s for s in steps if not any(_same(s.text, p.text) for p in parts)]
            if name == "recap":
                names = _customer_names(run.job)
                evidence = [
                    CheckedSentence(to_customer(s.text, names), s.messages, s.prompt_text)
                    for s in evidence
                ]
            return AspectText(name, " ".join(s.text for s in evidence), evidence=evidence)
        line = lines[name if name in self.custom else _NEEDS[name][0]]
        checked = self._checked(run, line, ids=name == "issue", fragments=name in self.custom)
        return AspectText(name, " ".join(s.text for s in checked), evidence=checked)

    def _checked(
        self, run: Run, text: str, *, ids: bool = False, fragments: bool = False
    ) -> list[CheckedSentence]:
        """``text``'s sentences that pass a summary's checks, speakers by their own names;
        with ``ids``, the conversation's IDs of what they name put back (the issue's: other
        parts would repeat them); ``fragments`` may open with any word (custom aspects)."""
        job = run.job
        if not text:
            return []
        if not self.checks:
            return [CheckedSentence(job.cast.write_back(s), (), s) for s in split_sentences(text)]
        key = (text, ids, fragments)
        if key not in self._checked_lines:
            checked = check_draft(
                text, job.transcript, job.cast, "paragraph", restore_ids=ids, fragments=fragments
            )
            if checked.dropped:
                run.summary.steps.append(f"dropped {len(checked.dropped)} aspect sentences")
            self._checked_lines[key] = checked.sentences
        return self._checked_lines[key]

    def _next_steps(self, run: Run, line: str) -> AspectText:
        job = run.job
        owners = {job.cast.names[s]: s.name for s in job.transcript.speakers}
        steps: list[NextStep] = []
        evidence: list[CheckedSentence] = []
        for part in re.split(r";\s*", line):
            part = part.strip().rstrip(".")
            if not part or _says_nothing(part):
                continue
            for sentence in self._checked(run, _sentence(part)):
                owner = next(
                    (own for said, own in owners.items() if sentence.prompt_text.startswith(said)),
                    None,
                )
                steps.append(NextStep(owner=owner, text=sentence.text))
                evidence.append(sentence)
        words = _WORDS.get(job.language_code, _WORDS["en"])
        content = " ".join(s.text for s in steps) or words["none"]
        return AspectText("nextSteps", content, steps=steps, evidence=evidence)

    def _title(self, run: Run, line: str) -> str:
        """At most eight words, none of them a name or number the conversation lacks."""
        job = run.job
        title = job.cast.write_back(line.strip().strip('"').rstrip("."))
        if self.checks:
            facts = check_facts(title, job.transcript.evidence, openers=True)
            unsupported = set(facts.unsupported)
            title = " ".join(w for w in title.split() if w.strip(",:;'\"") not in unsupported)
        return " ".join(title.split()[:_TITLE_WORDS])

    # --- the requested language ----------------------------------------------------------

    def _translate(self, run: Run, written: list[AspectText]) -> None:
        """The text aspects in the requested language, sentence by sentence in one batch;
        labels are worded from a table, entities stay as the conversation wrote them."""
        texts: list[tuple[AspectText, int, str]] = []  # (aspect, sentence or -1, its text)
        for aspect in written:
            if aspect.aspect in ("resolutionStatus", "sentiment", "entities"):
                continue
            if aspect.evidence:
                texts.extend((aspect, n, s.text) for n, s in enumerate(aspect.evidence))
            elif aspect.content and aspect.aspect != "nextSteps":
                texts.append((aspect, -1, aspect.content))
        # The narrative repeats the issue's, resolution's and steps' sentences: each once.
        parts = list(dict.fromkeys(text for _, _, text in texts))
        if not parts:
            return
        result = translate_parts(
            run, parts, self.engine, self.identifier, prompts.SYSTEM_ASPECTS, self.machine
        )
        done = dict(zip(parts, result.texts, strict=True))
        by_aspect: dict[int, list[tuple[int, str | None]]] = {}
        for aspect, number, text in texts:
            by_aspect.setdefault(id(aspect), []).append((number, done[text]))
        kept = [text for text in done.values() if text]
        if not kept or not result.in_language(
            self.identifier, " ".join(kept), run.job.language_code
        ):
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                f"The model did not write the summary in {run.job.language_name} "
                f"({run.job.language}). Retry the request, or ask for the summary in English.",
            )
        for aspect in written:
            translated = by_aspect.get(id(aspect))
            if translated is None:
                continue
            if translated[0][0] == -1:
                aspect.content = translated[0][1] or ""
                continue
            aspect.evidence = [
                CheckedSentence(text, aspect.evidence[n].messages, aspect.evidence[n].prompt_text)
                for n, text in translated
                if text
            ]
            if aspect.steps is not None:
                aspect.steps = [
                    NextStep(owner=step.owner, text=text)
                    for step, (_, text) in zip(aspect.steps, translated, strict=True)
                    if text
                ]
            words = _WORDS.get(run.job.language_code, _WORDS["en"])
            aspect.content = " ".join(s.text for s in aspect.evidence) or words["none"]


def _custom_ask(custom: CustomAspect, label: str) -> str:
    """The organization's instruction and example, quoted as the conversation is: whatever
    their texts hold, they cannot end the turn or the example's block."""
    example = as_data(custom.example_conversation.strip())
    return (
        f"Also write a line {label} {as_line(custom.instruction)}\n"
        f"For example, for this conversation:\n<transcript>\n{example}\n</transcript>\n"
        f"the line would be:\n{label} {as_line(custom.example_answer)}\n"
        f"Now write the line {label} for the conversation above."
    )


def _label_of(name: str) -> str:
    """An aspect's name as a line's label: "callReason" → "Call reason"."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_-]+", " ", name).split()
    text = " ".join(words).lower()
    return text[:1].upper() + text[1:]


def _customer_names(job: SummaryJob) -> list[str]:
    """How the checked sentences name the customer (the first speaker when no one is)."""
    speakers = job.transcript.speakers
    customer = next((s for s in speakers if s.side is Side.CUSTOMER), speakers[0])
    written = job.cast.write_back(job.cast.names.get(customer, customer.name))
    first = customer.name.split()[0] if len(customer.name.split()) > 1 else ""
    return [name for name in (written, customer.name, first) if name]


def _same(a: str, b: str) -> bool:
    """Do two sentences say mostly the same (two thirds of the shorter's words)?"""
    words_a, words_b = (set(re.findall(r"\w+", t.lower())) for t in (a, b))
    shorter = min(len(words_a), len(words_b))
    return shorter > 0 and len(words_a & words_b) >= 2 * shorter / 3


def _says_nothing(text: str) -> bool:
    return text.strip().lower().rstrip(".") in ("", "none", "n/a", "nothing", "no", "unknown")


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _first_of(text: str, choices: Sequence[str], aliases: dict[str, str]) -> str:
    words: list[str] = re.findall(r"[a-z]+", text.lower())
    for word in words:
        if word in choices:
            return word
        if word in aliases:
            return aliases[word]
    return choices[-1]


def _sentiment(text: str) -> SentimentShift:
    """ "negative -> positive" as a shift; one word is both ends; anything else neutral."""
    moods = [w for w in re.findall(r"[a-z]+", text.lower()) if w in _MOODS]
    start = moods[0] if moods else "neutral"
    end = moods[1] if len(moods) > 1 else start
    return SentimentShift.model_validate({"start": start, "end": end})
