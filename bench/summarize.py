"""Benchmark of the summarize superpower on the real default model.

    python -m bench.summarize [--limit N] [--languages N] [--faithfulness]
    python -m bench.summarize --rouge-only [--summary-mode verified]
    python -m bench.summarize --floor-only [--summary-mode verified]

Prints, per set: latency p50/p95, prompt and completion tokens, generation tokens/s;
ROUGE-1/2/L against the DialogSum references; the share of summaries in the requested
language (en, es, fr, de, pt); and the ratio of end-to-end latency through the HTTP app
(uvicorn on 127.0.0.1) to direct llama.cpp calls with the same prompts, in the same run.
``--faithfulness`` also writes, for each pipeline variant, the summaries of the 30 checked
DialogSum dialogues and the support chats beside their who-did-what checklists, for review.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import random
import re
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import uvicorn
from rouge_score import rouge_scorer

from bench.common import DATA, percentile, support_chats
from bench.dialogsum import dialogue_body, load_dialogsum
from bench.faithfulness import score
from bench.load import short_translation
from threadwise.api.app import create_app
from threadwise.config import Settings
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatEngine, ChatMessage, Completion
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.prefix_states import PrefixStates
from threadwise.errors import ServiceError
from threadwise.payload import parse_message_body
from threadwise.services import Services, build_services
from threadwise.superpowers.summarize import Summarizer, SummaryOptions
from threadwise.text.transcript import build_transcript

RESULTS = Path(__file__).parent / "results"
LANGUAGES = (
    *("en-US", "es-ES", "fr-FR", "de-DE", "pt-PT", "it-IT", "nl-NL", "sv-SE", "id-ID"),
    *("ca-ES", "gl-ES"),
)
VARIANTS = {
    "labels (speakers as named, no checks)": SummaryOptions(cast=False, checks=False),
    "cast (distinct names, no checks)": SummaryOptions(cast=True, checks=False),
    "cast + checks (default)": SummaryOptions(cast=True, checks=True),
    "notes + cast + checks": SummaryOptions(notes=True, cast=True, checks=True),
}


def first_messages(body: dict[str, Any], count: int) -> dict[str, Any]:
    body = json.loads(json.dumps(body))
    conversation = body["request"]["scope"]["conversations"][0]
    conversation["messages"] = conversation["messages"][:count]
    return body


class Recorder:
    """Wraps the engine: records each chat call and its duration."""

    def __init__(self, engine: LlamaCppEngine) -> None:
        self.engine = engine
        self.calls: list[Call] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        max_tokens: int,
        deadline: Deadline | None = None,
        continue_from: str = "",
        keep: bool = False,
        stop: Sequence[str] = (),
        on_text: Callable[[str], None] | None = None,
    ) -> Completion:
        started = time.perf_counter()
        completion = self.engine.chat(
            list(messages),
            max_tokens=max_tokens,
            deadline=deadline,
            continue_from=continue_from,
            keep=keep,
            stop=stop,
            on_text=on_text,
        )
        self.calls.append(
            Call(
                list(messages),
                max_tokens,
                continue_from,
                time.perf_counter() - started,
                completion.prompt_tokens,
                completion.completion_tokens,
            )
        )
        return completion


@dataclass(frozen=True)
class Call:
    messages: list[ChatMessage]
    max_tokens: int
    continue_from: str
    seconds: float
    prompt_tokens: int
    completion_tokens: int


def run_set(
    summarizer: Summarizer,
    recorder: Recorder,
    bodies: list[tuple[str, dict[str, Any]]],
    limits: Any,
) -> list[dict[str, Any]]:
    rows = []
    for name, body in bodies:
        recorder.calls.clear()
        job = summarizer.plan(parse_message_body(body, limits))
        started = time.perf_counter()
        try:
            summary = summarizer.run(job, Deadline(600))
        except ServiceError as exc:  # counted and shown, not hidden
            print(f"  {name}: {exc.code.value}: {exc.message}")
            rows.append(
                {
                    "name": name,
                    "seconds": time.perf_counter() - started,
                    "error": exc.code.value,
                    "summary": "",
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "tokens_per_s": 0.0,
                    "notes": "",
                    "steps": [],
                    "language": job.language_code,
                }
            )
            continue
        elapsed = time.perf_counter() - started
        generation = sum(c.seconds for c in recorder.calls)
        rows.append(
            {
                "name": name,
                "seconds": elapsed,
                "prompt_tokens": summary.prompt_tokens,
                "completion_tokens": summary.completion_tokens,
                "tokens_per_s": summary.completion_tokens / generation if generation else 0.0,
                "summary": summary.text,
                "notes": summary.notes,
                "draft": summary.draft,
                "steps": summary.steps,
                "language": job.language_code,
            }
        )
    return rows


def report(title: str, rows: list[dict[str, Any]]) -> None:
    seconds = [r["seconds"] for r in rows]
    print(
        f"{title}: n={len(rows)}  latency p50 {statistics.median(seconds):.2f} s  "
        f"p95 {percentile(seconds, 0.95):.2f} s  "
        f"prompt tokens mean {statistics.mean(r['prompt_tokens'] for r in rows):.0f}  "
        f"completion tokens mean {statistics.mean(r['completion_tokens'] for r in rows):.0f}  "
        f"~{statistics.mean(r['tokens_per_s'] for r in rows):.1f} tokens/s (incl. prompt)"
    )


def rouge(rows: list[dict[str, Any]], references: dict[str, list[str]]) -> tuple[float, ...]:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    totals = [0.0, 0.0, 0.0]
    for row in rows:
        refs = references[row["name"]]
        for ref in refs:
            scores = scorer.score(ref, row["summary"])
            for i, key in enumerate(("rouge1", "rouge2", "rougeL")):
                totals[i] += scores[key].fmeasure / len(refs)
    return tuple(100 * t / len(rows) for t in totals)


@contextmanager
def serving(services: Services) -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        create_app(services.serving_context()),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join()


def overhead(
    services: Services, recorder: Recorder, bodies: list[tuple[str, dict[str, Any]]]
) -> None:
    """End-to-end through the HTTP app vs the same prompts sent straight to llama.cpp."""
    llm = recorder.engine._model()
    formatter = recorder.engine._formatter
    assert formatter is not None
    prime: list[ChatMessage] = [{"role": "user", "content": "Say OK."}]

    def reset_cache() -> None:  # both runs start with the same (unrelated) KV cache
        recorder.engine.chat(prime, max_tokens=2)

    http_total = direct_total = 0.0
    authorization = f"Bearer {bench_token(services, bodies)}"
    with serving(services) as port:
        for _, body in bodies:
            # A new connection each time: the direct replay outlasts uvicorn's keep-alive.
            client = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            reset_cache()
            recorder.calls.clear()
            payload = json.dumps(body).encode()
            started = time.perf_counter()
            client.request(
                "POST",
                "/message/summarize",
                payload,
                {"Content-Type": "application/json", "Authorization": authorization},
            )
            response = client.getresponse()
            text = response.read()
            client.close()
            http_total += time.perf_counter() - started
            assert response.status == 200, text
            calls = list(recorder.calls)
            assert calls, "the HTTP app's engine calls were not recorded"
            reset_cache()
            started = time.perf_counter()
            for call in calls:
                # The prompt as the engine renders it, straight into llama.cpp.
                rendered = formatter(messages=call.messages)  # type: ignore[arg-type]
                llm.create_completion(
                    prompt=llm.tokenize(
                        (rendered.prompt + call.continue_from).encode(),
                        add_bos=not rendered.added_special,
                        special=True,
                    ),
                    max_tokens=call.max_tokens,
                    stop=rendered.stop,
                    temperature=0.0,
                    top_k=1,
                    repeat_penalty=1.0,
                )
            direct_total += time.perf_counter() - started
    print(
        f"service overhead: HTTP end-to-end {http_total:.2f} s vs direct llama.cpp "
        f"{direct_total:.2f} s over {len(bodies)} requests: ratio {http_total / direct_total:.3f}"
    )


class FastTranslations:
    """Fast-tier translations sent to the server by two client processes (the clients' own
    work must not share the server's process), ``RATE`` a second in all: more than the load
    benchmark's mix offers at ten times capacity (~6 a second). ``paused`` while the floor
    is measured."""

    RATE = 10.0

    def __init__(self, port: int, authorization: str, organization: str) -> None:
        self.arguments = (port, authorization, organization)
        self.running = multiprocessing.Event()
        self.stopped = multiprocessing.Event()
        self.sent = multiprocessing.Value("i", 0)
        self.clients = [
            multiprocessing.Process(
                target=_send_translations,
                args=(*self.arguments, self.running, self.stopped, self.sent),
                daemon=True,
            )
            for _ in range(2)
        ]

    def __enter__(self) -> FastTranslations:
        self.running.set()
        for client in self.clients:
            client.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        self.running.set()
        for client in self.clients:
            client.join()

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.running.clear()
        time.sleep(0.2)  # let the translations in flight finish
        try:
            yield
        finally:
            self.running.set()


def post(port: int, path: str, body: dict[str, Any], authorization: str) -> tuple[int, bytes]:
    """POST ``body`` as JSON on a connection of its own; the status and the answer."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    client.request(
        "POST",
        path,
        json.dumps(body).encode(),
        {"Content-Type": "application/json", "Authorization": authorization},
    )
    response = client.getresponse()
    answer = response.read()
    client.close()
    return response.status, answer


def _send_translations(
    port: int, authorization: str, organization: str, running: Any, stopped: Any, sent: Any
) -> None:
    rng = random.Random()
    interval = 2 / FastTranslations.RATE
    next_at = time.monotonic()
    while not stopped.is_set():
        running.wait()
        time.sleep(max(0.0, next_at - time.monotonic()))
        next_at = max(next_at + interval, time.monotonic() - interval)
        if stopped.is_set():
            break
        body = short_translation(rng)
        body["request"]["context"]["organizationId"] = organization
        status, _ = post(port, "/message/translate", body, authorization)
        if status == 200:
            with sent.get_lock():
                sent.value += 1


def floor_ratios(
    services: Services,
    recorder: Recorder,
    bodies: list[tuple[str, dict[str, Any]]],
    *,
    beside_translations: bool = False,
) -> list[tuple[str, float, float]]:
    """(name, service seconds, floor seconds) per body, alternating: the summary through the
    HTTP app, then the floor, a bare llama.cpp call that reads the same transcript under the
    cached system prompt and writes a two-sentence summary. With ``beside_translations``,
    the summaries run while fast translations are sent; the floor is always measured quiet."""
    engine = recorder.engine
    llm = engine._model()
    formatter = engine._formatter
    assert formatter is not None
    system = services.default_summarizer.system_prompt
    authorization = f"Bearer {bench_token(services, bodies)}"
    organization = bodies[0][1]["request"]["context"]["organizationId"]
    measured = []
    with serving(services) as port, contextlib.ExitStack() as stack:
        mix = None
        if beside_translations:
            mix = stack.enter_context(FastTranslations(port, authorization, organization))
        for name, body in bodies:
            body = json.loads(json.dumps(body))
            body["request"]["connections"]["threadId"] = f"floor-{time.monotonic_ns()}"
            only_the_system_prompt(services)
            started = time.perf_counter()
            status, text = post(port, "/message/summarize", body, authorization)
            service = time.perf_counter() - started
            assert status == 200, text
            transcript = build_transcript(
                parse_message_body(body, services.limits).request.scope.conversations
            )
            chat: list[ChatMessage] = [
                {"role": "system", "content": system},
                {
                    "role": "user",
                    "content": f"Conversation ({transcript.who_is_who()}):\n{transcript.text}\n\n"
                    "Summarize the conversation in two sentences.",
                },
            ]
            with mix.paused() if mix else contextlib.nullcontext():
                only_the_system_prompt(services)
                engine._fit_threads(llm)
                rendered = formatter(messages=chat)  # type: ignore[arg-type]
                prompt = llm.tokenize(
                    rendered.prompt.encode(), add_bos=not rendered.added_special, special=True
                )
                started = time.perf_counter()
                llm.create_completion(
                    prompt=prompt,
                    max_tokens=120,
                    stop=rendered.stop,
                    temperature=0.0,
                    top_k=1,
                    repeat_penalty=1.0,
                )
                floor = time.perf_counter() - started
            measured.append((name, service, floor))
        if mix is not None:
            print(f"  fast translations answered beside the summaries: {mix.sent.value}")
    return measured


def only_the_system_prompt(services: Services) -> None:
    """Both sides of a ratio start alike: the engine holds the fixed system prompt (read
    ahead, as at start-up) and no saved state of any conversation."""
    engine = services.engine
    assert isinstance(engine, LlamaCppEngine)
    if engine.prefix_states is not None:
        engine.prefix_states = PrefixStates(engine.prefix_states.max_bytes)
    services.default_summarizer.warm()


def report_ratios(title: str, measured: list[tuple[str, float, float]]) -> None:
    ratios = [service / floor for _, service, floor in measured]
    services_s = [service for _, service, _ in measured]
    floors = [floor for _, _, floor in measured]
    print(
        f"{title}: service p50 {statistics.median(services_s):.2f} s, floor p50 "
        f"{statistics.median(floors):.2f} s, ratio median {statistics.median(ratios):.2f}x "
        f"(each: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


def bench_token(services: Services, bodies: list[tuple[str, dict[str, Any]]]) -> str:
    """A token for the organizations the bodies name: superpowers need one."""
    orgs = {body["request"]["context"]["organizationId"] for _, body in bodies}
    unlimited = 2**31 - 1
    client = services.auth.clients.create(
        "default", orgs, "bench", requests_per_minute=unlimited, characters_per_minute=unlimited
    )
    return services.auth.issuer.issue("default", client.client.client_id, orgs).token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100, help="DialogSum dialogues for ROUGE")
    parser.add_argument("--languages", type=int, default=10, help="dialogues per language")
    parser.add_argument("--faithfulness", action="store_true")
    parser.add_argument("--faithfulness-only", action="store_true")
    parser.add_argument("--overhead-only", action="store_true")
    parser.add_argument("--floor-only", action="store_true", help="only the latency ratios")
    parser.add_argument("--rouge-only", action="store_true", help="only ROUGE on DialogSum")
    parser.add_argument(
        "--languages-only", action="store_true", help="only the summaries in each language"
    )
    parser.add_argument(
        "--tags", help="with --languages-only: these languages (en-US,gl-ES), English first"
    )
    parser.add_argument(
        "--summary-mode",
        choices=("fast", "verified"),
        help="with --floor-only: the quiet ratios of this request.settings.summaryMode only; "
        "with --rouge-only or --faithfulness-only: the summaries written in this mode",
    )
    parser.add_argument("--variant", help="only the faithfulness variants whose label has this")
    args = parser.parse_args()

    # Its own data directory: the bench's client must not stand in for the first-run client.
    data_dir = Path(tempfile.mkdtemp(prefix="threadwise-bench-"))
    # No result cache: every request is summarized, not answered from an earlier run.
    services = build_services(Settings(data_dir=data_dir, result_cache_ttl_seconds=0))
    started = time.perf_counter()
    services.identifier.load()
    services.engine.load()
    print(f"model {services.engine.name} loaded in {time.perf_counter() - started:.1f} s")
    assert isinstance(services.engine, LlamaCppEngine)
    recorder = Recorder(services.engine)
    # The HTTP app's summarizer records its engine calls too, so they can be replayed directly.
    services.default_summarizer.engine = cast(ChatEngine, recorder)
    summarizer = services.default_summarizer
    RESULTS.mkdir(exist_ok=True)

    dialogues = load_dialogsum()
    chats = support_chats()
    services.default_summarizer.warm()
    if args.overhead_only:
        overhead(services, recorder, overhead_bodies(dialogues, chats))
    elif args.floor_only:
        floors(services, recorder, chats, args.summary_mode)
    elif args.languages_only:
        tags = tuple(args.tags.split(",")) if args.tags else LANGUAGES
        requested_languages(summarizer, recorder, dialogues, services, args.languages, tags)
    elif args.rouge_only:
        dialogsum_rouge(summarizer, recorder, dialogues, services, args.limit, args.summary_mode)
    elif not args.faithfulness_only:
        main_sets(args, services, summarizer, recorder, dialogues, chats)
    if args.faithfulness or args.faithfulness_only:
        faithfulness(services, recorder, dialogues, chats, args.variant, args.summary_mode)


def main_sets(
    args: argparse.Namespace,
    services: Services,
    summarizer: Summarizer,
    recorder: Recorder,
    dialogues: list[dict[str, Any]],
    chats: list[dict[str, Any]],
) -> None:
    short = [(f"{c['id']}[:5]", first_messages(c["body"], 5)) for c in chats[:6]]
    long = [
        (c["id"], c["body"])
        for c in chats
        if len(c["body"]["request"]["scope"]["conversations"][0]["messages"]) >= 40
    ]
    report("5-message chats", run_set(summarizer, recorder, short, services.limits))
    report("40+-message chats", run_set(summarizer, recorder, long, services.limits))

    dialogsum_rouge(summarizer, recorder, dialogues, services, args.limit)

    requested_languages(summarizer, recorder, dialogues, services, args.languages)

    floors(services, recorder, chats)


def requested_languages(
    summarizer: Summarizer,
    recorder: Recorder,
    dialogues: list[dict[str, Any]],
    services: Services,
    count: int,
    tags: tuple[str, ...] = LANGUAGES,
) -> None:
    """``count`` DialogSum dialogues summarized in each of ``tags``: how many summaries are
    in the language asked for, and the median time against the first's (English)."""
    english = None
    for tag in tags:
        bodies = [(d["fname"], dialogue_body(d, tag)) for d in dialogues[:count]]
        try:
            lang_rows = run_set(summarizer, recorder, bodies, services.limits)
        except Exception as exc:  # a failed language check is reported, not hidden
            print(f"{tag}: failed: {exc}")
            continue
        hits = sum(services.identifier.detect(r["summary"]) == tag[:2] for r in lang_rows)
        p50 = statistics.median(r["seconds"] for r in lang_rows)
        english = english or p50
        print(
            f"{tag}: {hits}/{len(lang_rows)} summaries in the requested language, "
            f"p50 {p50:.2f} s ({p50 / english:.2f}x English)",
            flush=True,
        )


def dialogsum_rouge(
    summarizer: Summarizer,
    recorder: Recorder,
    dialogues: list[dict[str, Any]],
    services: Services,
    limit: int,
    mode: str | None = None,
) -> None:
    """The first ``limit`` DialogSum dev dialogues summarized (in ``summaryMode`` ``mode``),
    scored against their references; written to ``results/dialogsum[-MODE].jsonl``."""
    bodies = []
    for d in dialogues[:limit]:
        body = dialogue_body(d)
        if mode:
            body["request"].setdefault("settings", {})["summaryMode"] = mode
        bodies.append((d["fname"], body))
    rows = run_set(summarizer, recorder, bodies, services.limits)
    report(f"DialogSum dev{f', summaryMode {mode}' if mode else ''}", rows)
    references = {d["fname"]: [d["summary"]] for d in dialogues}
    r1, r2, rl = rouge(rows, references)
    print(f"ROUGE-1/2/L on {len(rows)} DialogSum dev dialogues: {r1:.1f} / {r2:.1f} / {rl:.1f}")
    name = f"dialogsum-{mode}.jsonl" if mode else "dialogsum.jsonl"
    (RESULTS / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def floors(
    services: Services,
    recorder: Recorder,
    chats: list[dict[str, Any]],
    mode: str | None = None,
) -> None:
    """Latency as a ratio to the floor, quiet and beside fast translations; with ``mode``,
    quiet only, every request asking for that ``summaryMode``."""
    short = [(f"{c['id']}[:5]", first_messages(c["body"], 5)) for c in chats[:6]]
    long = [
        (c["id"], c["body"])
        for c in chats
        if len(c["body"]["request"]["scope"]["conversations"][0]["messages"]) >= 40
    ]
    if mode:
        for title, bodies in (("5-message chats", short), ("40+-message chats", long)):
            for _, body in bodies:
                body["request"].setdefault("settings", {})["summaryMode"] = mode
            measured = floor_ratios(services, recorder, bodies)
            report_ratios(f"{title}, quiet, summaryMode {mode}", measured)
        return
    engine = recorder.engine
    cores = engine.cores
    conditions = [
        ("quiet", False, cores),
        ("beside fast translations, model threads fitted to the cores", True, cores),
        (
            "beside fast translations, model threads fixed (THREADWISE_LLM_SHARE_CORES=false)",
            True,
            None,
        ),
    ]
    for where, beside, share in conditions:
        engine.cores = share
        for title, bodies in (("5-message chats", short), ("40+-message chats", long)):
            measured = floor_ratios(services, recorder, bodies, beside_translations=beside)
            report_ratios(f"{title}, {where}", measured)
    engine.cores = cores


def overhead_bodies(
    dialogues: list[dict[str, Any]], chats: list[dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    short = [(f"{c['id']}[:5]", first_messages(c["body"], 5)) for c in chats[:3]]
    return short + [(d["fname"], dialogue_body(d)) for d in dialogues[:3]]


def faithfulness(
    services: Services,
    recorder: Recorder,
    dialogues: list[dict[str, Any]],
    chats: list[dict[str, Any]],
    only: str | None = None,
    mode: str | None = None,
) -> None:
    """Each pipeline variant on the checked dialogues and chats: scored where a machine can
    (``bench.faithfulness``), written out beside the conversations for a reader; with
    ``mode``, every request asks for that ``summaryMode``."""
    checklists = {
        json.loads(line)["fname"]
        for line in (DATA / "dialogsum_checklist.jsonl").read_text().splitlines()
    }
    checked = [(d["fname"], dialogue_body(d)) for d in dialogues if d["fname"] in checklists]
    checked += [(c["id"], c["body"]) for c in chats]
    if mode:
        checked = [(name, json.loads(json.dumps(body))) for name, body in checked]
        for _, body in checked:
            body["request"].setdefault("settings", {})["summaryMode"] = mode
    bodies = dict(checked)
    key_facts = {c["id"]: c["key_facts"] for c in chats}
    for label, options in VARIANTS.items():
        if only and only not in label:
            continue
        variant = Summarizer(recorder, services.identifier, options)
        variant.warm()
        rows = run_set(variant, recorder, checked, services.limits)
        for row in rows:
            row["score"] = score(row["summary"], bodies[row["name"]], key_facts.get(row["name"]))
        slug = label.split(" (")[0].replace(" + ", "+").replace(" ", "-")
        slug += f"-{mode}" if mode else ""
        out = RESULTS / f"faithfulness-{slug}.jsonl"
        out.write_text(
            "".join(json.dumps({**r, "score": r["score"].as_json()}) + "\n" for r in rows)
        )
        report(f"faithfulness set, {label}", rows)
        print_scores(rows)
        print(f"  summaries written to {out}")


def print_scores(rows: list[dict[str, Any]]) -> None:
    """The mechanical faithfulness figures of one variant."""
    n = len(rows)
    scores = [r["score"] for r in rows]
    invented = sum(bool(s.invented_names) for s in scores)
    numbers = sum(bool(s.unsupported_numbers) for s in scores)
    facts = sum(s.key_facts for s in scores)
    kept = sum(s.key_facts_kept for s in scores)
    swapped = sum(_count(r["steps"], "swapped actors in") for r in rows)
    dropped = sum(_count(r["steps"], "dropped") for r in rows)
    failed = sum("error" in r for r in rows)
    print(
        f"  {n} summaries, {failed} failed: with a name not in the conversation {invented}; "
        f"with a number/ID not in it {numbers}; support chats' key facts kept {kept}/{facts}; "
        f"sentences with actors swapped back by the check {swapped}, dropped {dropped}"
    )
    for row in rows:
        s = row["score"]
        if s.invented_names or s.unsupported_numbers:
            print(f"    {row['name']}: {s.invented_names or ''} {s.unsupported_numbers or ''}")


def _count(steps: list[str], prefix: str) -> int:
    total = 0
    for step in steps:
        number = re.search(r"\d+", step)
        if step.startswith(prefix):
            total += int(number.group(0)) if number else 1
    return total


if __name__ == "__main__":
    main()
