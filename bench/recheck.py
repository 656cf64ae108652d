"""The summary checks run again on saved drafts, without the model.

    python -m bench.recheck bench/results/faithfulness-cast+checks.jsonl [--out FILE]
    python -m bench.recheck --checklists


The checks (``summarize/checks.py``) are deterministic, so a change to them can be measured on
the very drafts a review judged: each saved draft is checked again by the current code and the
summaries that come out different are printed beside the saved ones (and, with ``--out``,
written as a results file that ``bench.review`` can pack). With ``--checklists``, the actor
check reads the who-did-what checklists' own sentences instead: how many right ones it leaves
alone, how many wrong ones ("not") it changes.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.common import DATA, support_chats
from bench.dialogsum import dialogue_body, load_dialogsum
from threadwise.config import Settings
from threadwise.payload import parse_message_body
from threadwise.services import Services, build_services
from threadwise.superpowers.summarize.attribution import Attributor
from threadwise.superpowers.summarize.checks import check_draft
from threadwise.superpowers.summarize.corroboration import corroborate
from threadwise.superpowers.summarize.job import plan
from threadwise.superpowers.summarize.outcome import state_outcome
from threadwise.superpowers.summarize.sentences import concise, fit_length


def bodies() -> dict[str, dict[str, Any]]:
    checklists = {
        json.loads(line)["fname"]
        for line in (DATA / "dialogsum_checklist.jsonl").read_text().splitlines()
    }
    found = {d["fname"]: dialogue_body(d) for d in load_dialogsum() if d["fname"] in checklists}
    found.update({c["id"]: c["body"] for c in support_chats()})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="?")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--checklists", action="store_true")
    parser.add_argument(
        "--second",
        type=Path,
        help="second drafts (JSON lines: name, alt) to corroborate each summary with, as "
        'summaryMode "verified" does',
    )
    args = parser.parse_args()
    services = build_services(Settings(data_dir=Path(tempfile.mkdtemp(prefix="recheck-"))))
    services.identifier.load()
    known = bodies()
    if args.checklists:
        checklists(services, known)
        return
    rows = [json.loads(line) for line in args.results.read_text().splitlines()]
    seconds = {}
    if args.second:
        for line in args.second.read_text().splitlines():
            row = json.loads(line)
            seconds[row["name"]] = row["alt"]
    changed = 0
    for row in rows:
        job = plan(parse_message_body(known[row["name"]], services.limits), services.identifier)
        # The saved draft has the callers' labels back: the prompt's names again.
        draft = row["draft"]
        for alias, label in job.cast.aliases.items():
            draft = draft.replace(label, alias).replace(label[0].upper() + label[1:], alias)
        checked = check_draft(
            concise(draft, job.form, job.sentences), job.transcript, job.cast, job.form
        )
        if row["name"] in seconds:  # as the pipeline does in summaryMode "verified"
            corroborate(checked, seconds[row["name"]], job.cast.names.values())
        if job.form == "paragraph" and job.transcript.has_roles:  # as the pipeline does
            messages = job.transcript.messages
            state_outcome(checked, checked.ledger, messages, job.cast.names, job.cast.write_back)
        text = fit_length(checked.text(job.form), job.max_chars)
        if text != row["summary"]:
            changed += 1
            print(f"{row['name']}\n  was: {row['summary']}\n  now: {text}")
            for dropped in checked.dropped:
                print(f"  dropped {dropped}")
        row["summary"] = text
    print(f"{changed} of {len(rows)} summaries changed")
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))


def checklists(services: Services, known: dict[str, dict[str, Any]]) -> None:
    """The actor check on the checklists' sentences: right ones kept, wrong ones changed."""
    right = wrong = changed_right = changed_wrong = 0
    for line in (DATA / "dialogsum_checklist.jsonl").read_text().splitlines():
        item = json.loads(line)
        job = plan(parse_message_body(known[item["fname"]], services.limits), services.identifier)
        attributor = Attributor(job.transcript.messages, job.cast.names)
        prompt_names = {s.name: n for s, n in job.cast.names.items()}

        def prompt(text: str, names: dict[str, str] = prompt_names) -> str:
            for label, name in names.items():
                text = text.replace(label, name)
            return text

        for entry in item["checklist"]:
            sentence = prompt(f"{entry['actor']} {entry['did']}.")
            right += 1
            if attributor.check(sentence).text != sentence:
                changed_right += 1
                print(f"  {item['fname']} right one changed: {sentence}")
            if entry["not"].startswith("#Person"):
                sentence = prompt(f"{entry['not']}.")
                wrong += 1
                changed_wrong += attributor.check(sentence).text != sentence
    print(f"right sentences left alone: {right - changed_right} of {right}")
    print(f"wrong sentences changed: {changed_wrong} of {wrong}")


if __name__ == "__main__":
    main()
