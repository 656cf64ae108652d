"""Blind review of summaries: pack the variants' summaries, shuffled and unlabelled, beside
their conversations; then tally the reviewer's judgments per variant.

    python -m bench.review pack VARIANT... --out DIR [--batches N]
    python -m bench.review tally DIR

``pack`` reads ``bench/results/faithfulness-VARIANT.jsonl`` and writes ``DIR/batch-K.md``
(conversation and summary, one item per anonymous key) and ``DIR/key.json`` (which key is
which variant: not for the reviewer). The reviewer writes ``DIR/judgments-K.jsonl``, one line
per item: {"key", "swapped_actor": bool, "unsupported": bool, "issue": bool|null,
"action": bool|null, "outcome": bool|null, "note"} (the last three for support chats only).
``tally`` prints the rubric's table (bench/FAITHFULNESS.md) per variant and set.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.common import support_chats
from bench.dialogsum import load_dialogsum

RESULTS = Path(__file__).parent / "results"


def conversations() -> dict[str, str]:
    """Each checked conversation as the reviewer reads it."""
    texts = {d["fname"]: d["dialogue"] for d in load_dialogsum()}
    for chat in support_chats():
        conversation = chat["body"]["request"]["scope"]["conversations"][0]
        names = {
            p["participantId"]: f"{p.get('displayName') or p['participantId']} ({p.get('role')})"
            for p in conversation["participants"]
        }
        texts[chat["id"]] = "\n".join(
            f"{names.get(m['participantId'], m['participantId'])}: {m['content']}"
            for m in conversation["messages"]
        )
    return texts


def pack(variants: list[str], out: Path, batches: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    texts = conversations()
    # One item per distinct summary: the variants that wrote the same words share its
    # judgment (a reviewer is not asked twice, nor given a second chance to differ).
    found: dict[tuple[str, str], list[str]] = {}
    for variant in variants:
        for line in (RESULTS / f"faithfulness-{variant}.jsonl").read_text().splitlines():
            row = json.loads(line)
            found.setdefault((row["name"], row.get("summary", "")), []).append(variant)
    items = [(names, name, summary) for (name, summary), names in found.items()]
    rng = random.Random(20261122)
    rng.shuffle(items)
    key: dict[str, dict[str, Any]] = {}
    for number in range(batches):
        lines = []
        for index, (names, name, summary) in enumerate(items[number::batches]):
            item = f"{number}-{index:03d}"
            key[item] = {"variants": names, "name": name}
            kind = "support chat" if name.startswith("sc-") else "dialogue"
            lines += [
                f"## {item} ({kind})",
                "",
                "Conversation:",
                "```",
                texts[name],
                "```",
                "",
                f"Summary: {summary or '(none: the request failed)'}",
                "",
            ]
        (out / f"batch-{number}.md").write_text("\n".join(lines))
    (out / "key.json").write_text(json.dumps(key, indent=1))
    print(f"{len(items)} summaries in {batches} batches in {out}")


def tally(out: Path) -> None:
    key = json.loads((out / "key.json").read_text())
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for path in sorted(out.glob("judgments-*.jsonl")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            judgment: dict[str, Any] = json.loads(line)
            item = key[judgment["key"]]
            kind = "support" if item["name"].startswith("sc-") else "dialogsum"
            variants = item.get("variants") or [item["variant"]]
            groups = [(v, k) for v in variants for k in (kind, "all")]
            for group in groups:
                c = counts[group]
                c["n"] += 1
                c["swapped"] += bool(judgment["swapped_actor"])
                c["unsupported"] += bool(judgment["unsupported"])
                c["either"] += bool(judgment["swapped_actor"] or judgment["unsupported"])
                for part in ("issue", "action", "outcome"):
                    c[part] += bool(judgment.get(part))
    print("| variant | set | n | swapped actor | unsupported fact | either | issue/action/outcome")
    print("|---|---|---|---|---|---|---|")
    for (variant, kind), c in sorted(counts.items()):
        n = c["n"]
        covered = (
            f"{c['issue']}/{n} · {c['action']}/{n} · {c['outcome']}/{n}"
            if kind == "support"
            else "-"
        )
        print(
            f"| {variant} | {kind} | {n} | {c['swapped']} ({c['swapped'] / n:.0%}) | "
            f"{c['unsupported']} ({c['unsupported'] / n:.0%}) | {c['either']} "
            f"({c['either'] / n:.0%}) | {covered} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack")
    packing.add_argument("variants", nargs="+")
    packing.add_argument("--out", type=Path, required=True)
    packing.add_argument("--batches", type=int, default=3)
    tallying = commands.add_parser("tally")
    tallying.add_argument("out", type=Path)
    args = parser.parse_args()
    if args.command == "pack":
        pack(args.variants, args.out, args.batches)
    else:
        tally(args.out)


if __name__ == "__main__":
    main()
