"""Mechanical defects in saved summaries, counted without a reader or the model.

    python -m bench.mechanical bench/results/faithfulness-cast+checks.jsonl [more files]

Reads results files of ``python -m bench.summarize --faithfulness-only`` and counts, per file,
the summaries with one label for two people ("Tony and Tony celebrate", "#Person1# is
unhappy with #Person1#"), those cut below a full sentence (too few words, ending in "Mr.",
no closing punctuation), and those naming a participant by an exclamation ("God" from "Oh, my
God!"); then lists them. Its detectors share no code with the pipeline's own checks, so that
the scan checks them rather than repeats them.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

from threadwise.text.exclamations import INTERJECTIONS

_TITLES = ("Mr", "Mrs", "Ms", "Miss", "Dr", "Prof", "St", "Jr", "Sr")
_TITLE = rf"(?:(?:{'|'.join(_TITLES)})\.?\s+)"
# A mention of someone: a label, a role, or capitalised words (with a title).
_MENTION = re.compile(
    rf"#\w+#|\b[Tt]he (?:customer|agent|caller|user)\b|{_TITLE}?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*"
)
# Between two mentions of one person, what makes them two people: "X and X", "X thanks X",
# "X is unhappy with X".
_TWO_PEOPLE = re.compile(
    r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|&)\s+|\s+(?:\w+ly\s+)?[a-z]+\s+"
    r"|\s[^.,;:!?]{0,60}?\b(?:with|to|from|against|at)\s+"
)
# "…, with Rick holding her hand": the second mention opens a clause of its own.
_OWN_CLAUSE = re.compile(r"\s+\w+ing\b")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
MIN_SENTENCE_WORDS = 4
MIN_SUMMARY_WORDS = 5

Row = dict[str, Any]


def one_label_for_two(summary: str, participants: Iterable[str] = ()) -> str | None:
    """A mention that ``summary`` gives to two people in one clause, if any; a word two
    ``participants`` share ("Carlos Mendoza and Julia Mendoza") tells no one apart."""
    names = [set(p.split()) for p in participants]
    for sentence in sentences(summary):
        found = list(_MENTION.finditer(sentence))
        for first, second in pairwise(found):
            if sentence[second.end() :].startswith("'") or sentence[first.end() :].startswith("'"):
                continue  # "Tony reads Tony's note": one person and his things
            shared = _words(first.group(0)) & _words(second.group(0))
            if not shared or sum(bool(shared & n) for n in names) > 1:
                continue
            if _OWN_CLAUSE.match(sentence, second.end()):
                continue
            if _TWO_PEOPLE.fullmatch(sentence[first.end() : second.start()]):
                return second.group(0)
    return None


def cut_short(summary: str) -> list[str]:
    """The sentences of ``summary`` that are not whole: too short, ending in a title
    ("... asks Mr."), the last one without closing punctuation."""
    found = sentences(summary)
    if len(summary.split()) < MIN_SUMMARY_WORDS:
        return found or [summary]
    cut = [s for s in found if len(s.split()) < MIN_SENTENCE_WORDS or _ends_in_title(s)]
    if found and not _SENTENCE_END.search(found[-1]) and found[-1] not in cut:
        cut.append(found[-1])
    return cut


def exclaimed_names(summary: str, participants: Iterable[str] = ()) -> list[str]:
    """The words of ``summary`` that name someone by an exclamation ("God", "Lord")."""
    own = {w for name in participants for w in name.split()}
    found = []
    for sentence in sentences(summary):
        for match in re.finditer(r"\b[A-Z][a-z]+\b", sentence):
            word = match.group(0)
            if word not in INTERJECTIONS or word in own:
                continue
            if _opens(sentence, match.start()) and re.match(r"\s*[,!]", sentence[match.end() :]):
                continue  # "Wow, ..." opening a quoted exclamation
            found.append(word)
    return found


def sentences(summary: str) -> list[str]:
    """``summary``'s sentences and bullet lines; "Mr. Chan" is one sentence, not two."""
    parts: list[str] = []
    for piece in _BREAK.split(summary):
        piece = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", piece).strip()
        if not piece:
            continue
        if parts and _ends_in_title(parts[-1]) and piece[:1].isupper():
            parts[-1] += " " + piece
        else:
            parts.append(piece)
    return parts


def scan(rows: list[Row], bodies: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Each defect's offending summaries: (name, what was found)."""
    found: dict[str, list[tuple[str, str]]] = {
        "one label for two people": [],
        "cut below a full sentence": [],
        "participant named by an exclamation": [],
    }
    for row in rows:
        summary, name = row.get("summary") or "", row["name"]
        if row.get("error") or not summary:
            continue
        twice = one_label_for_two(summary, participants(bodies.get(name)))
        if twice:
            found["one label for two people"].append((name, twice))
        cut = cut_short(summary)
        if cut:
            found["cut below a full sentence"].append((name, " | ".join(cut)))
        exclaimed = exclaimed_names(summary, participants(bodies.get(name)))
        if exclaimed:
            found["participant named by an exclamation"].append((name, ", ".join(exclaimed)))
    return found


def participants(body: dict[str, Any] | None) -> list[str]:
    """The display names of a request body's participants."""
    if body is None:
        return []
    conversations = body["request"]["scope"]["conversations"]
    return [p.get("displayName") or "" for c in conversations for p in c["participants"]]


def _opens(sentence: str, at: int) -> bool:
    return not sentence[:at].strip(" \"'*")


def _ends_in_title(sentence: str) -> bool:
    return re.search(rf"\b(?:{'|'.join(_TITLES)})\.$", sentence) is not None


def _words(mention: str) -> set[str]:
    return {w.strip(".") for w in mention.split()} - set(_TITLES) - {"the", "The"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    from bench.recheck import bodies  # the conversations: DialogSum and the support chats

    known = bodies()
    for path in args.results:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        failed = sum(bool(r.get("error")) or not r.get("summary") for r in rows)
        found = scan(rows, known)
        print(f"{path}: {len(rows)} summaries ({failed} failed or empty)")
        for defect, offending in found.items():
            print(f"  {defect}: {len(offending)}")
        summaries = {r["name"]: r.get("summary", "") for r in rows}
        for defect, offending in found.items():
            for name, what in offending:
                print(f"    {name} [{defect}: {what}]\n      {summaries[name]}")


if __name__ == "__main__":
    main()
