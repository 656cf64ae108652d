"""Benchmark: glossary terms in translations, the rest of the sentence, and the cost.

    python -m bench.glossary [--tiers fast,quality] [--pairs es,fr,de,pt] [--rounds 5] [--no-cost]

On ``bench/data/glossary_sentences.jsonl`` (60 support messages, 15 each en→es, en→fr, en→de,
en→pt, each with its glossary terms and a reference translation that uses them), per tier
and pair, through the translate superpower with the real engines:
- the share of translations that contain every glossary target term (target >= 98%);
- chrF of the rest of the sentence against the reference, with and without the glossary
  (the same engine; the glossary's terms removed from its output and the reference, the
  engine's own translation of each term, asked alone, removed from its output without the
  glossary): the target is a drop of at most 1 point;
- in the fast tier, the time per message with and without the glossary, each message timed
  both ways back to back over ``--rounds`` rounds in the same process (target: at most 1 ms
  more on average).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from pathlib import Path
from typing import Any

from sacrebleu.metrics.chrf import CHRF

from bench.common import loaded_services
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.services import Services
from threadwise.superpowers.translate import UNCHANGED
from threadwise.text.terms import Glossary, Term

SET = Path(__file__).with_name("data") / "glossary_sentences.jsonl"


def body(text: str, target: str, tier: str) -> Any:
    data = {
        "session": {"channel": {"language": target}},
        "request": {
            "connections": {"threadId": "bench-glossary"},
            "context": {"organizationId": "org-bench"},
            "settings": {"translationMode": tier},
            "scope": {
                "conversations": [
                    {
                        "participants": [{"participantId": "c", "displayName": "Customer"}],
                        "messages": [{"participantId": "c", "content": text}],
                    }
                ]
            },
        },
    }
    return parse_message_body(data, PayloadLimits())


def glossary_of(line: dict[str, Any]) -> Glossary:
    terms = tuple(Term(t["source"], t["target"]) for t in line["terms"])
    return Glossary("g", "org-bench", line["id"], "en", line["target_language"], terms, True)


async def translate(
    services: Services, text: str, target: str, tier: str, glossary: Glossary | None
) -> tuple[str, str]:
    [[item]] = await services.translate(
        body(text, target, tier), (glossary,) if glossary else (), ()
    )
    return item.content, item.engine or UNCHANGED


def without(text: str, phrases: list[str]) -> str:
    for phrase in sorted(phrases, key=len, reverse=True):
        text = re.sub(re.escape(phrase), " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def target_tag(line: dict[str, Any]) -> str:
    return str(line.get("variant") or line["target_language"])


async def quality(services: Services, lines: list[dict[str, Any]], tier: str) -> None:
    by_pair: dict[str, dict[str, list[Any]]] = {}
    for line in lines:
        target = target_tag(line)
        glossary = glossary_of(line)
        with_terms, engine = await translate(services, line["text"], target, tier, glossary)
        if engine == UNCHANGED:
            continue  # no engine of this tier for the pair
        plain, _ = await translate(services, line["text"], target, tier, None)
        own = [
            (await translate(services, t.source, target, tier, None))[0] for t in glossary.entries
        ]
        targets = [t.target for t in glossary.entries]
        row = by_pair.setdefault(line["target_language"], {k: [] for k in ("hit", "g", "p", "r")})
        row["hit"].append(all(t.lower() in with_terms.lower() for t in targets))
        row["g"].append(without(with_terms, targets))
        row["p"].append(without(plain, [*targets, *own]))
        row["r"].append(without(line["reference"], targets))
    for pair, row in sorted(by_pair.items()):
        chrf_with = CHRF().corpus_score(row["g"], [row["r"]]).score
        chrf_without = CHRF().corpus_score(row["p"], [row["r"]]).score
        print(
            f"{tier:8} en→{pair}: terms in {sum(row['hit'])}/{len(row['hit'])} "
            f"({sum(row['hit']) / len(row['hit']):.0%}); chrF of the rest {chrf_with:.1f} with "
            f"the glossary, {chrf_without:.1f} without ({chrf_with - chrf_without:+.1f})",
            flush=True,
        )


async def cost(services: Services, lines: list[dict[str, Any]], rounds: int) -> None:
    """Each message timed with and without its glossary back to back (which goes first
    alternating by round): the difference of each pair cancels what drifts in between."""
    fast = [line for line in lines if line["target_language"] in ("es", "pt")]
    differences: dict[str, list[float]] = {"es": [], "pt": []}
    plain: list[float] = []
    for number in range(rounds):
        for line in fast:
            seconds = {}
            for glossed in (number % 2 == 0, number % 2 == 1):
                glossary = glossary_of(line) if glossed else None
                started = time.perf_counter()
                await translate(services, line["text"], target_tag(line), "fast", glossary)
                seconds[glossed] = time.perf_counter() - started
            differences[line["target_language"]].append((seconds[True] - seconds[False]) * 1000)
            plain.append(seconds[False] * 1000)
    every = [d for pair in differences.values() for d in pair]
    print(
        f"fast tier, {len(fast)} messages x {rounds} rounds, each timed with and without the "
        f"glossary back to back: {statistics.mean(every):+.2f} ms a message on average "
        f"(median {statistics.median(every):+.2f}; en→es {statistics.mean(differences['es']):+.2f}"
        f", en→pt {statistics.mean(differences['pt']):+.2f}) against "
        f"{statistics.median(plain):.2f} ms without (target <= +1)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", default="fast,quality")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", default="es,fr,de,pt", help="target languages")
    parser.add_argument("--no-cost", action="store_true", help="leave the timing out")
    args = parser.parse_args()
    lines = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    lines = [x for x in lines if x["target_language"] in args.pairs.split(",")]
    with loaded_services() as services:

        async def run() -> None:
            for tier in args.tiers.split(","):
                await quality(services, lines, tier)
            if not args.no_cost:
                await cost(services, lines, args.rounds)

        asyncio.run(run())


if __name__ == "__main__":
    main()
