"""Who-did-what checks on conversations where one speaker writes in another language.

    python -m bench.mixed_languages --write          # the data (the model translates: minutes)
    python -m bench.mixed_languages                  # the actor check, as written / read
    python -m bench.mixed_languages --summaries 15   # and summaries of the support chats

A customer who writes in Spanish to an agent who answers in English is common; the summary is
written and checked in English. The data (``bench/data/mixed_languages.jsonl``) are the 60
checked DialogSum dialogues and the 15 support chats with one speaker's messages (DialogSum's
first speaker, the chats' customer) translated into Spanish, French and Portuguese in turn by
threadwise's quality tier (the model into es and fr, Bergamot into pt); the other speaker's stay
English. DialogSum is CC BY-NC-SA 4.0: these lines, like its checklists, are for evaluation only.

The actor check (``summarize/attribution.py``) is run on each checklist's sentences, as in
``bench.recheck --checklists``: the right one ("Priya Raman asked to return the headphones")
must be left alone, and the same with the other speaker as its actor must be changed. It runs
on the English original, on the mixed conversation as written, and on the mixed conversation
with each message read in English by the fast engines (``TranslateSuperpower.readings``, what
the summarize superpower does). With ``--summaries N``, N mixed support chats are summarized
with and without the readings. ``--write-summaries`` writes the three variants of
``VARIANTS`` for a blind review (``bench.review``; bench/FAITHFULNESS.md, round 5).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench.common import DATA, loaded_services, support_chats
from bench.dialogsum import dialogue_body, load_dialogsum
from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.payload import parse_message_body
from threadwise.services import Services
from threadwise.superpowers.summarize.attribution import Attributor
from threadwise.superpowers.summarize.job import SummaryJob, plan
from threadwise.text.transcript import Said, Transcript

MIXED = DATA / "mixed_languages.jsonl"
LANGUAGES = ("es", "fr", "pt")


@dataclass(frozen=True)
class Case:
    name: str
    body: dict[str, Any]  # the English original
    mixed: dict[str, Any]  # one speaker's messages in ``language``
    language: str
    checklist: list[dict[str, str]]


def originals() -> Iterator[tuple[str, dict[str, Any], list[dict[str, str]], str]]:
    """(name, body, checklist, the participant whose messages are translated)."""
    lists = {
        item["fname"]: item
        for item in map(json.loads, (DATA / "dialogsum_checklist.jsonl").read_text().splitlines())
    }
    for row in load_dialogsum():
        if row["fname"] in lists:
            yield row["fname"], dialogue_body(row), lists[row["fname"]]["checklist"], "p1"
    for chat in support_chats():
        conversation = chat["body"]["request"]["scope"]["conversations"][0]
        people = conversation["participants"]
        customers = [p for p in people if p.get("role") in ("EndUser", "user")] or people
        customer = customers[0]["participantId"]
        yield chat["id"], chat["body"], chat["checklist"], customer


async def write(services: Services) -> None:
    """Translate one speaker's messages of each conversation (the quality tier)."""
    rows = []
    started = time.perf_counter()
    for number, (name, body, _, speaker) in enumerate(originals()):
        language = LANGUAGES[number % len(LANGUAGES)]
        conversation = body["request"]["scope"]["conversations"][0]
        theirs = [m for m in conversation["messages"] if m.get("participantId") == speaker]
        ask = copy.deepcopy(body)
        ask["request"]["scope"]["conversations"][0]["messages"] = theirs
        ask["request"]["settings"] = {"targetLanguages": [language]}
        ask["session"]["channel"] = {"language": "en-US"}
        [items] = await services.translate(parse_message_body(ask, services.limits))
        mixed = copy.deepcopy(body)
        translated = iter(item.content for item in items)
        for message in mixed["request"]["scope"]["conversations"][0]["messages"]:
            if message.get("participantId") == speaker:
                message["content"] = next(translated)
        rows.append({"name": name, "language": language, "speaker": speaker, "mixed": mixed})
        print(f"{name} ({language}): {len(theirs)} messages, {time.perf_counter() - started:.0f} s")
    MIXED.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    print(f"written to {MIXED}")


def cases() -> list[Case]:
    found = {name: (body, checklist) for name, body, checklist, _ in originals()}
    rows = [json.loads(line) for line in MIXED.read_text().splitlines()]
    return [
        Case(row["name"], body, row["mixed"], row["language"], checklist)
        for row in rows
        for body, checklist in [found[row["name"]]]
    ]


@dataclass
class Tally:
    right: int = 0
    right_kept: int = 0
    wrong: int = 0
    wrong_changed: int = 0

    def __str__(self) -> str:
        return (
            f"right sentences left alone {self.right_kept}/{self.right} "
            f"({self.right_kept / max(1, self.right):.0%}), wrong ones changed "
            f"{self.wrong_changed}/{self.wrong} ({self.wrong_changed / max(1, self.wrong):.0%})"
        )


def judge(job: SummaryJob, checklist: list[dict[str, str]], tally: Tally, log: list[str]) -> None:
    """The actor check on the checklist's sentences and their swapped versions."""
    attributor = Attributor(job.transcript.messages, job.cast.names)
    speakers = list(job.cast.names)
    if len(speakers) != 2:
        return
    by_label = {s.name: job.cast.names[s] for s in speakers}
    for entry in checklist:
        actor = by_label.get(entry["actor"])
        if actor is None:
            continue
        other = next(n for s, n in job.cast.names.items() if n != actor)
        right = f"{actor} {entry['did']}."
        wrong = f"{other} {entry['did']}."
        tally.right += 1
        if attributor.check(right).text == right:
            tally.right_kept += 1
        else:
            log.append(f"right one changed: {right}")
        tally.wrong += 1
        if attributor.check(wrong).text != wrong:
            tally.wrong_changed += 1


async def measure(services: Services, summaries: int) -> None:
    found = cases()
    tallies = {"English original": Tally(), "mixed, as written": Tally(), "mixed, read": Tally()}
    changed_logs: dict[str, list[str]] = {label: [] for label in tallies}
    reading_seconds: dict[str, list[float]] = {"mixed": [], "English": []}
    for case in found:
        original = plan(parse_message_body(case.body, services.limits), services.identifier)
        mixed = plan(parse_message_body(case.mixed, services.limits), services.identifier)
        # What reading costs a summary: an English conversation is only identified.
        read_as: dict[str, list[str | None]] = {}
        for kind, job in (("English", original), ("mixed", mixed)):
            messages = job.transcript.messages
            started = time.perf_counter()
            read_as[kind] = await services.translate.readings(
                [m.text for m in messages], [0] * len(messages), Deadline(60)
            )
            reading_seconds[kind].append(time.perf_counter() - started)
        read = replace(mixed, transcript=mixed.transcript.read(read_as["mixed"]))
        for label, job in zip(tallies, (original, mixed, read), strict=True):
            judge(job, case.checklist, tallies[label], changed_logs[label])
    print(f"{len(found)} conversations (one speaker in es, fr or pt), two speakers each:")
    for label, tally in tallies.items():
        print(f"  {label:18} {tally}")
    for kind, seconds in reading_seconds.items():
        print(
            f"  reading a {kind} conversation: {sum(seconds) / len(seconds) * 1000:.1f} ms "
            f"(mean; max {max(seconds) * 1000:.1f} ms)"
        )
    for case in found[-summaries:] if summaries else []:
        body = parse_message_body(case.mixed, services.limits)
        texts = []
        for reader in (None, services.translate.readings):
            services.summarize.reader = reader
            [item] = await services.summarize(body)
            texts.append(item.content)
        mark = "same" if texts[0] == texts[1] else "DIFFERENT"
        print(f"{case.name} ({case.language}) {mark}")
        print(f"  as written: {texts[0]}\n  read:       {texts[1]}")


RESULTS = Path(__file__).parent / "results"
# How the summaries of the mixed conversations are written, for a blind review
# (``bench.review pack mixed-plain mixed-checks-read mixed-read``): as written, no readings;
# read in English for the checks (the service); read for the checks and in the prompt too.
VARIANTS = ("mixed-plain", "mixed-checks-read", "mixed-read", "mixed-both")


def reading_in_the_prompt(transcript: Transcript, both: bool = False) -> Transcript:
    """``transcript`` whose lines show each message's English reading instead of what was
    written, or with ``both``, after it in brackets (tried: round 5)."""

    def shown(said: Said) -> str:
        if said.reading is None:
            return said.text
        return f"{said.text} [in English: {said.reading}]" if both else said.reading

    messages = tuple(replace(m, text=shown(m)) for m in transcript.messages)
    lines = replace(transcript, messages=messages).renamed(transcript.names).lines
    return replace(transcript, lines=lines)


async def write_summaries(services: Services, variants: Sequence[str] = VARIANTS) -> None:
    """Each mixed conversation summarized in each of ``variants``."""
    found = cases()
    summarize = services.summarize
    read = summarize._read

    async def prompt_too(transcript: Transcript, deadline: Deadline) -> Transcript:
        return reading_in_the_prompt(await read(transcript, deadline))

    async def prompt_both(transcript: Transcript, deadline: Deadline) -> Transcript:
        return reading_in_the_prompt(await read(transcript, deadline), both=True)

    readers = {"mixed-read": prompt_too, "mixed-both": prompt_both}
    for variant in variants:
        summarize.reader = None if variant == "mixed-plain" else services.translate.readings
        # The bench takes the service apart to compare.
        summarize._read = readers.get(variant, read)  # type: ignore[method-assign]
        rows = []
        started = time.perf_counter()
        for case in found:
            try:
                [item] = await summarize(parse_message_body(case.mixed, services.limits))
            except ServiceError as exc:  # counted (an empty summary in the review), not hidden
                print(f"  {case.name}: {exc.code.value}: {exc.message}")
                rows.append({"name": case.name, "language": case.language, "summary": ""})
                continue
            rows.append({"name": case.name, "language": case.language, "summary": item.content})
        out = RESULTS / f"faithfulness-{variant}.jsonl"
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        print(f"{variant}: {len(rows)} summaries in {time.perf_counter() - started:.0f} s: {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="translate the data (minutes)")
    parser.add_argument("--summaries", type=int, default=0, help="support chats to summarize")
    parser.add_argument(
        "--write-summaries", nargs="*", choices=VARIANTS, help="these variants (all), for a review"
    )
    args = parser.parse_args()
    # Deadlines for a busy machine: these runs measure what is written, not how fast.
    with loaded_services(request_timeout_seconds=900) as services:
        if args.write:
            asyncio.run(write(services))
        elif args.write_summaries is not None:
            asyncio.run(write_summaries(services, args.write_summaries or VARIANTS))
        else:
            asyncio.run(measure(services, args.summaries))


if __name__ == "__main__":
    main()
