"""Benchmark: translations in the register asked for (``request.settings.formality``).

    python -m bench.formality [--languages es,fr,de,pt] [--limit 40] [--tiers quality,fast]

On ``bench/data/formality_sentences.jsonl`` (40 English support messages a language, each
with a formal and an informal reference into es, fr, de and pt-PT, and the marker words only
one register has), through the translate superpower with the real engines, in each tier:
each language's messages as one request per register (formal, informal, and default). A language
given rules in ``text.formality`` but no references here takes the same 40 English messages,
checked by the rules alone (how the languages in docs/guides/formality.md were tried).
Printed per tier, language and register:
- the share in the register asked for by the pronoun and verb-form rules
  (``text.formality.RegisterCheck``; target >= 95%), and, as a check written apart from
  those rules, the share with none of the other register's marker words of the line;
- chrF against the reference of that register, and the default's against each;
- seconds per request against the default's, in the same run;
- the engine (the fast tier has none for en→de).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

from sacrebleu.metrics.chrf import CHRF

from bench.common import loaded_services
from threadwise.engines.apertium import ApertiumEngine
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.protocol import Formality
from threadwise.services import Services
from threadwise.text.formality import RegisterCheck, addresses_reader, distinguishes

SET = Path(__file__).with_name("data") / "formality_sentences.jsonl"
REGISTERS: tuple[Formality, ...] = ("formal", "informal")


def body(texts: list[str], target: str, tier: str, formality: str) -> Any:
    data = {
        "session": {"channel": {"language": target}},
        "request": {
            "connections": {"threadId": "bench-formality"},
            "context": {"organizationId": "org-bench"},
            "settings": {"translationMode": tier, "formality": formality},
            "scope": {
                "conversations": [
                    {
                        "participants": [{"participantId": "a", "displayName": "Agent"}],
                        "messages": [{"participantId": "a", "content": t} for t in texts],
                    }
                ]
            },
        },
    }
    return parse_message_body(data, PayloadLimits())


async def translate(
    services: Services, lines: list[dict[str, Any]], tier: str, formality: str
) -> tuple[list[str], list[str], float]:
    target = str(lines[0].get("variant") or lines[0]["target_language"])
    started = time.perf_counter()
    [items] = await services.translate(body([x["text"] for x in lines], target, tier, formality))
    seconds = time.perf_counter() - started
    return [i.content for i in items], [i.engine or "" for i in items], seconds


def has_word(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


async def run(
    services: Services, lines: list[dict[str, Any]], check: RegisterCheck, tiers: list[str]
) -> None:
    for tier in tiers:
        # by the rules, by the markers, of, of those with markers
        totals = {r: [0, 0, 0, 0] for r in REGISTERS}
        for language in sorted({x["target_language"] for x in lines}):
            group = [x for x in lines if x["target_language"] == language]
            region = "PT" if group[0].get("variant") == "pt-PT" else None
            default, _, default_seconds = await translate(services, group, tier, "default")
            for register in REGISTERS:
                other = "informal" if register == "formal" else "formal"
                texts, engines, seconds = await translate(services, group, tier, register)
                if engines[0] == "none":
                    print(f"{tier:7} en→{language}: no engine in this tier", flush=True)
                    break
                by_rules = by_markers = 0
                for line, text in zip(group, texts, strict=True):
                    speaks = addresses_reader(line["text"], "en")
                    wrong = check.problems(text, language, region, register, speaks)
                    by_rules += not wrong
                    markers = line.get("markers", {}).get(other, [])
                    by_markers += not any(has_word(m, text) for m in markers)
                    if wrong:
                        print(f"  {line['id']} {tier} {register}: {wrong} in {text!r}")
                n = len(group)
                referenced = register in group[0]
                totals[register] = [
                    totals[register][0] + by_rules,
                    totals[register][1] + by_markers * referenced,
                    totals[register][2] + n,
                    totals[register][3] + n * referenced,
                ]
                if referenced:
                    references = [[x[register] for x in group]]
                    chrf = CHRF().corpus_score(texts, references).score
                    chrf_default = CHRF().corpus_score(default, references).score
                    against = (
                        f", {by_markers}/{n} ({by_markers / n:.0%}) by the markers; chrF "
                        f"{chrf:.1f} (default {chrf_default:.1f})"
                    )
                else:
                    against = " (no references)"
                print(
                    f"{tier:7} en→{language} {register:8}: {by_rules}/{n} ({by_rules / n:.0%}) by "
                    f"the rules{against}; {seconds:.1f} s (default {default_seconds:.1f} s); "
                    f"engine {engines[0]!r}",
                    flush=True,
                )
        for register, (rules, markers, n, marked) in totals.items():
            print(
                f"{tier:7} all {register:8}: {rules}/{n} ({rules / max(n, 1):.1%}) by the rules "
                f"(target >= 95%), {markers}/{marked} ({markers / max(marked, 1):.1%}) by the "
                "markers"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default="es,fr,de,pt")
    parser.add_argument("--limit", type=int, default=40, help="messages per language")
    parser.add_argument("--tiers", default="quality,fast")
    args = parser.parse_args()
    wanted = args.languages.split(",")
    for language in wanted:
        if not distinguishes(language):
            raise SystemExit(f"{language}: no register rules (text.formality), nothing to measure")
    every = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    lines = [x for x in every if x["target_language"] in wanted]
    written = {x["target_language"] for x in every}
    english = [x for x in every if x["target_language"] == "es"]
    lines += [
        {
            "id": x["id"].replace("-es-", f"-{language}-"),
            "target_language": language,
            "text": x["text"],
        }
        for language in wanted
        if language not in written
        for x in english
    ]
    lines = [x for x in lines if int(x["id"].rsplit("-", 1)[1]) <= args.limit]
    # The model takes its time: no fallback to a fast engine.
    with loaded_services(translation_timeout_seconds=900) as services:
        apertium = ApertiumEngine(("en", "es", "fr", "de", "pt"))  # the analyzers
        check = RegisterCheck(apertium.analyze, apertium.analyzed_languages())
        asyncio.run(run(services, lines, check, args.tiers.split(",")))
        apertium.close()


if __name__ == "__main__":
    main()
