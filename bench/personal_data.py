"""Personal data found in chat messages: precision and recall per kind on a planted set.

    python -m bench.personal_data [--set bench/data/personal_data.jsonl] [--show-misses]

Three sets (``bench/data/README.md``): the first (the default), a held-out one
(``personal_data_unseen.jsonl``) and one of values written in other forms
(``personal_data_formats.jsonl``: full-width, zero-width and no-break characters, other
separators, spelled-out e-mail addresses, names in lower case or capitals). Each holds hand-written
chat messages (en, es, fr, de, pt) with the personal data planted in each listed by kind and
exact text, and hard negatives (order numbers, amounts, dates, tracking numbers, a card's
last four digits…). A planted value counts as found when a find of its kind covers all of it
(what masking needs); a find counts as right when it overlaps a planted value of its kind.
"hidden" counts planted values covered by a find of any kind. Also prints the detector's
time per message. The detectors are the service's own (``serving.redaction.Redactor``, with
Apertium's analyzers for names).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from threadwise.engines.apertium import ApertiumEngine
from threadwise.serving.redaction import Redactor
from threadwise.text.found import Found

SET = Path(__file__).with_name("data") / "personal_data.jsonl"
KINDS = ("EMAIL", "PHONE", "CARD", "IBAN", "NATIONAL_ID", "PERSON", "ADDRESS")
RECALL_TARGETS = {"EMAIL": 0.98, "PHONE": 0.98, "CARD": 0.98, "IBAN": 0.98}
RECALL_TARGETS |= {"PERSON": 0.90, "ADDRESS": 0.90}


@dataclass(frozen=True)
class Planted:
    kind: str
    start: int
    end: int
    value: str


def planted(text: str, items: Sequence[dict[str, str]]) -> list[Planted]:
    """Each listed value at its place in ``text`` (repeats in order of appearance)."""
    out = []
    position: Counter[str] = Counter()
    for item in items:
        start = text.index(item["value"], position[item["value"]])
        position[item["value"]] = start + 1
        out.append(Planted(item["kind"], start, start + len(item["value"]), item["value"]))
    return out


def covers(found: Found, item: Planted) -> bool:
    return found.start <= item.start and found.end >= item.end


def overlaps(found: Found, item: Planted) -> bool:
    return found.start < item.end and item.start < found.end


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=SET)
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args(argv)
    lines = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    found_right: Counter[str] = Counter()
    found_all: Counter[str] = Counter()
    recalled: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    total: Counter[str] = Counter()
    seconds = 0.0
    analyzer = ApertiumEngine(["en", "es", "fr", "pt", "de"])
    analyzer.load()
    redactor = Redactor(analyzer)
    for line in lines:
        text = line["text"]
        items = planted(text, line["pii"])
        started = time.perf_counter()
        finds = redactor.find(text)
        seconds += time.perf_counter() - started
        for item in items:
            total[item.kind] += 1
            if any(f.kind == item.kind and covers(f, item) for f in finds):
                recalled[item.kind] += 1
            elif args.show_misses:
                print(f"  missed {item.kind} {item.value!r} in {line['id']}: {finds}")
            if any(covers(f, item) for f in finds):
                hidden[item.kind] += 1
        for f in finds:
            found_all[f.kind] += 1
            if any(i.kind == f.kind and overlaps(f, i) for i in items):
                found_right[f.kind] += 1
            elif args.show_misses:
                print(f"  wrong {f.kind} {f.value!r} in {line['id']}")
    print(f"{len(lines)} messages, {sum(total.values())} planted values")
    print(f"{'kind':12} {'planted':>7} {'recall':>7} {'hidden':>7} {'found':>6} {'precision':>9}")
    problems = []
    for kind in KINDS:
        n, got = total[kind], found_all[kind]
        recall = recalled[kind] / n if n else float("nan")
        precision = found_right[kind] / got if got else float("nan")
        print(
            f"{kind:12} {n:7} {recall:7.1%} {hidden[kind] / max(n, 1):7.1%} {got:6} "
            f"{precision:9.1%}"
        )
        target = RECALL_TARGETS.get(kind)
        if target is not None and n and recall < target:
            problems.append(f"{kind} recall {recall:.1%} (target {target:.0%})")
    print(f"time: {seconds / max(len(lines), 1) * 1000:.2f} ms a message")
    print("\n" + ("targets met" if not problems else "targets missed:\n  " + "\n  ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
