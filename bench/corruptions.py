"""How many wrong summary sentences the checks catch, without the model.

    python -m bench.corruptions [--write] [--show KIND]

The correct sentences are the who-did-what checklists' ("Sam recommends Rachel's pet
store.", with the speakers' prompt names, as the model writes them) and the support chats'
checklist sentences that are plain clauses. Each is corrupted the ways summaries go wrong
(``bench.corruption_kinds``) and every sentence, correct or not, goes alone through
``check_draft`` as the pipeline calls it. A wrong sentence is caught when it comes out
changed or dropped, fixed when it comes out as the correct one; a correct sentence changed is
a false alarm. ``--write`` commits the figures to ``bench/data/corruption_figures.json``,
which ``tests/bench/test_corruptions.py`` holds the checks to.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bench.common import DATA, support_chats
from bench.corruption_kinds import KINDS, Sentence
from bench.dialogsum import DIALOGSUM, dialogue_body, load_dialogsum
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.superpowers.summarize.checks import check_draft
from threadwise.superpowers.summarize.job import SummaryJob, plan
from threadwise.superpowers.summarize.sentences import concise
from threadwise.text.languages import LanguageIdentifier

FIGURES = DATA / "corruption_figures.json"
CORRECT = "correct"
# Support-chat checklist entries written as notes ("declined: 40 days; …", "a / b") are no
# sentences a summary would hold.
_NOTES = re.compile(r"[;:/()]|\bNOT\b|^(?:after|only)\b")


@dataclass(frozen=True)
class Case:
    """One sentence to check, in its dialogue."""

    job: SummaryJob
    kind: str  # CORRECT or a key of KINDS
    text: str  # speakers by their prompt names
    correct: str  # the correct sentence it was made from


def dialogsum_present() -> bool:
    """Is the DialogSum dev set beside the repository (it is not shipped in it: its
    license)? Without it only the support chats, which are the repository's own, are read."""
    return DIALOGSUM.is_file()


def correct_sentences(dialogsum: bool = True) -> Iterator[tuple[SummaryJob, Sentence]]:
    """The checklists' correct sentences, each with its conversation's planned job: the
    support chats', and with ``dialogsum`` the DialogSum dialogues' too."""
    checklists = [
        json.loads(line) for line in (DATA / "dialogsum_checklist.jsonl").read_text().splitlines()
    ]
    dialogues = {d["fname"]: d for d in load_dialogsum()} if dialogsum else {}
    for item in checklists if dialogsum else ():
        job = _job(dialogue_body(dialogues[item["fname"]]))
        names = {s.name: n for s, n in job.cast.names.items()}
        for entry in item["checklist"]:
            predicate = entry["did"]
            for label, name in names.items():
                predicate = predicate.replace(label, name)
            yield job, _sentence(job, names[entry["actor"]], predicate)
    for chat in support_chats():
        job = _job(chat["body"])
        names = {k: n for s, n in job.cast.names.items() for k in (s.name, s.key)}
        for entry in chat["checklist"]:
            if not _NOTES.search(entry["did"]):
                yield job, _sentence(job, names[entry["actor"]], entry["did"])


def _job(body: dict[str, Any]) -> SummaryJob:
    # The bodies name their language: the identifier is never asked, so never loaded.
    return plan(parse_message_body(body, PayloadLimits()), LanguageIdentifier())


def _sentence(job: SummaryJob, actor: str, predicate: str) -> Sentence:
    names = list(job.cast.names.values())
    own = [m.text for m in job.transcript.messages if job.cast.names[m.speaker] == actor]
    theirs = [m.text for m in job.transcript.messages if job.cast.names[m.speaker] != actor]
    return Sentence(
        actor=actor,
        predicate=predicate,
        other=next(n for n in names if n != actor) if len(names) == 2 else None,
        own_words=frozenset(re.findall(r"[a-z][a-z-]+", " ".join(own).lower())),
        other_text=" ".join(theirs),
    )


def corpus(dialogsum: bool = True) -> list[Case]:
    """Every correct sentence and every corruption of it, in a fixed order."""
    cases = []
    for job, sentence in correct_sentences(dialogsum):
        cases.append(Case(job, CORRECT, sentence.text, sentence.text))
        for kind, corrupt in KINDS.items():
            wrong = corrupt(sentence)
            if wrong is not None and wrong != sentence.text:
                cases.append(Case(job, kind, wrong, sentence.text))
    return cases


@dataclass(frozen=True)
class Outcome:
    case: Case
    written: str  # the sentence as the caller would read it, unchecked
    checked: str  # as the checks left it ("" when dropped)

    @property
    def changed(self) -> bool:
        return not _same(self.checked, self.written)

    @property
    def fixed(self) -> bool:
        return _same(self.checked, self.case.job.cast.write_back(self.case.correct))


def check(case: Case) -> Outcome:
    """``case`` through the checks, as the pipeline calls them on a draft."""
    job = case.job
    checked = check_draft(
        concise(case.text, job.form, job.sentences), job.transcript, job.cast, job.form
    )
    return Outcome(case, job.cast.write_back(case.text), checked.text(job.form))


def _same(checked: str, written: str) -> bool:
    """Equal but for the IDs the checks put back ("the order" → "the order 48213"): those
    add to a sentence without changing what it says."""
    if checked == written:
        return True
    if not checked:
        return False
    ops = difflib.SequenceMatcher(None, written, checked, autojunk=False).get_opcodes()
    return all(
        op == "equal" or (op == "insert" and re.search(r"\d", checked[j1:j2]))
        for op, _, _, j1, j2 in ops
    )


def figures(
    outcomes: list[Outcome] | None = None, dialogsum: bool = True
) -> dict[str, dict[str, float]]:
    """Per kind: n, caught (changed or dropped) and fixed shares; for the correct sentences,
    n and the share changed (false alarms)."""
    outcomes = [check(c) for c in corpus(dialogsum)] if outcomes is None else outcomes
    found: dict[str, dict[str, float]] = {}
    for kind in (CORRECT, *KINDS):
        mine = [o for o in outcomes if o.case.kind == kind]
        n = len(mine)
        if kind == CORRECT:
            found[kind] = {"n": n, "changed": _share(sum(o.changed for o in mine), n)}
        else:
            found[kind] = {
                "n": n,
                "caught": _share(sum(o.changed for o in mine), n),
                "fixed": _share(sum(o.fixed for o in mine), n),
            }
    return found


def _share(count: int, n: int) -> float:
    return round(count / n, 4) if n else 0.0


def table(found: dict[str, dict[str, float]]) -> str:
    lines = [f"{'kind':<18} {'n':>4} {'caught':>7} {'fixed':>7} {'changed':>8}"]
    for kind, row in found.items():
        cells = [f"{row[k]:7.1%}" if k in row else f"{'':>7}" for k in ("caught", "fixed")]
        changed = f"{row['changed']:8.1%}" if "changed" in row else ""
        lines.append(f"{kind:<18} {int(row['n']):>4} {' '.join(cells)} {changed}")
    return "\n".join(lines)


# The sections of the figures file: the whole corpus, and the support chats' part alone.
ALL, SUPPORT = "all", "support chats"


def committed(section: str = ALL) -> dict[str, dict[str, float]]:
    """The figures last written with ``--write``, of the whole corpus or of ``SUPPORT``."""
    loaded: dict[str, dict[str, dict[str, float]]] = json.loads(FIGURES.read_text())
    return loaded[section]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {FIGURES.name}")
    parser.add_argument("--show", metavar="KIND", help="print each sentence of KIND as checked")
    args = parser.parse_args()
    outcomes = [check(c) for c in corpus()]
    if args.show:
        for o in outcomes:
            if o.case.kind == args.show:
                mark = "fixed" if o.fixed else "caught" if o.changed else "missed"
                print(f"{mark:>6}  {o.written}\n        -> {o.checked or '(dropped)'}")
    found = figures(outcomes)
    print(table(found))
    if args.write:
        support = figures([o for o in outcomes if o.case.job.transcript.has_roles])
        written = {ALL: found, SUPPORT: support}
        FIGURES.write_text(json.dumps(written, indent=2) + "\n")
        print(f"written to {FIGURES}")


if __name__ == "__main__":
    main()
